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
  private static final String LOGS = "logs are outside Sextant's scope (a service-mesh backend)";

  private static final Map<String, String> BY_FILE = Map.of(
      "trace", TRACES,
      "trace-10.4", TRACES,
      "profile", "trace profiling is outside Sextant's scope (a service-mesh backend)",
      "async-profiler", "Java agent profiling (async-profiler) is outside Sextant's scope (a service-mesh backend)",
      "log", LOGS,
      "log-10.4", LOGS,
      "ondemand-pod-log", LOGS,
      "browser-log", BROWSER);

  private static final Map<String, String> BY_OPERATION = Map.of(
      "getAllBrowserServices", BROWSER,
      "searchBrowserServices", BROWSER,
      "searchBrowserService", BROWSER,
      "getAllDatabases", "database monitoring is outside Sextant's scope (a service-mesh backend)");

  private Refusals() {}

  /** The error for an operation nobody wired, from schema file {@code file} (e.g. {@code trace}). */
  public static String message(String operation, String file) {
    String reason = BY_OPERATION.getOrDefault(operation, BY_FILE.get(file));
    return "operation '" + operation + "' is not supported by Sextant" + (reason != null ? ": " + reason : " yet");
  }
}
