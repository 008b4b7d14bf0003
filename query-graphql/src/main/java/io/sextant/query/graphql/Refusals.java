package io.sextant.query.graphql;

import java.util.Map;

/**
 * Why an operation of the schema is not served, so a client's error says whether to wait for it or
 * to look elsewhere. Keyed by the schema file the operation comes from; single operations that
 * differ from their file are listed by name.
 */
public final class Refusals {
  private static final String BROWSER = "browser monitoring is outside Sextant's scope (a service-mesh backend)";

  private static final String TRACES = "traces are outside Sextant's scope (a service-mesh backend)";
  private static final String POD_LOGS = "on-demand pod logs (read from Kubernetes) are not served by Sextant;"
      + " it serves the error logs of its Envoy proxies through queryLogs";

  private static final Map<String, String> BY_FILE = Map.of(
      "trace", TRACES,
      "trace-10.4", TRACES,
      "profile", "trace profiling is outside Sextant's scope (a service-mesh backend)",
      "async-profiler", "Java agent profiling (async-profiler) is outside Sextant's scope (a service-mesh backend)",
      "ondemand-pod-log", POD_LOGS,
      "browser-log", BROWSER);

  private static final Map<String, String> BY_OPERATION = Map.of(
      "getAllBrowserServices", BROWSER,
      "searchBrowserServices", BROWSER,
      "searchBrowserService", BROWSER,
      "getAllDatabases", "database monitoring is outside Sextant's scope (a service-mesh backend)",
      "test", "LAL (SkyWalking's log analysis language) is not part of Sextant, so there is no rule to test");

  private Refusals() {}

  /** The error for an operation nobody wired, from schema file {@code file} (e.g. {@code trace}). */
  public static String message(String operation, String file) {
    String reason = BY_OPERATION.getOrDefault(operation, BY_FILE.get(file));
    return "operation '" + operation + "' is not supported by Sextant" + (reason != null ? ": " + reason : " yet");
  }
}
