package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.oneOf;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.StorageFactory;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/** Every configuration key Sextant knows, with its default. docs/configuration.md lists them. */
public final class ConfigKeys {
  private ConfigKeys() {}

  /** The server's own keys: listening, core and query. */
  private static final List<ConfigKey> OWN = List.of(
      string("server.host", "0.0.0.0", "address to listen on"),
      integer("server.grpcPort", 11800, 1, 65535, "gRPC port for receivers (SkyWalking's default)"),
      integer("server.httpPort", 12800, 1, 65535, "HTTP port: /graphql, /metrics, /healthz, /readyz"),
      integer("server.maxGrpcMessageBytes", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024,
          "largest gRPC message accepted on the wire; larger ones fail the stream with RESOURCE_EXHAUSTED"),
      integer("server.maxHttpRequestBytes", 1024 * 1024, 1024, 64 * 1024 * 1024, "largest HTTP request body"),
      integer("server.requestTimeoutSeconds", 30, 1, 3600, "timeout of one GraphQL request"),
      integer("server.shutdownGraceSeconds", 5, 0, 300, "how long in-flight requests may finish on shutdown"),
      integer("server.drainReadinessSeconds", 5, 0, 300,
          "on SIGTERM, how long /readyz answers 503 while still serving, before streams are ended"),
      integer("server.readyHighWaterPercent", 90, 1, 100,
          "/readyz answers 503 while the write queue (core.maxPendingMegabytes) is this full, and again 200"
              + " 10 points below; storage health is not part of readiness"),
      integer("server.drainTimeoutSeconds", 30, 1, 3600,
          "on stop, how long writing what was accepted may take; what is left is counted and logged"),

      string("core.collectorId", defaultCollectorId(), "this collector's id, tagged on every partial it writes"),
      string("core.timezone", ZoneId.systemDefault().getId(), "time zone of time buckets and query durations"),
      integer("core.flushIntervalMillis", 10_000, 100, 60_000,
          "how often accumulated partials are collected and written: how fresh the newest minute is"),
      integer("core.closedCollectIntervalMillis", 2000, 100, 60_000,
          "how often closed minutes and late records leave the aggregator for the write queue (bounds its memory)"),
      integer("core.rollupIntervalMillis", 60_000, 0, 600_000,
          "how often hour and day roll-ups are rewritten: how fresh the current hour and day are"),
      integer("core.graceMinutes", 1, 0, 60, "minutes a past minute stays open for late records"),
      integer("core.maxAccumulators", 50_000, 1000, 100_000_000,
          "open (entity, minute) accumulators; past it new entities are refused (RESOURCE_EXHAUSTED)"),
      integer("core.maxLateMinutes", 1440, 1, 100_000, "records older than this are refused"),
      integer("core.maxFutureMinutes", 10, 0, 1440, "records further in the future than this are refused"),
      integer("core.maxPendingMegabytes", 96, 1, 1_000_000,
          "memory for partial rows waiting for storage (newer versions replace older); past it the oldest are"
              + " dropped (counted)"),
      integer("core.maxCachedIds", 1_000_000, 0, 100_000_000, "entity ids cached by name"),
      integer("core.apdexThresholdMillis", 500, 1, 3_600_000, "apdex threshold T"),

      integer("query.maxDepth", 15, 2, 100, "deepest GraphQL selection"),
      integer("query.maxComplexity", 5000, 10, 1_000_000, "most fields in one GraphQL request"),
      integer("query.maxDurationPoints", 10080, 10, 1_000_000, "most time points in one queried duration"),
      integer("query.expressionThreads", 4, 1, 256,
          "threads running the expressions of one request at once (1: one after another)"),
      integer("query.maxCachedDocuments", 500, 0, 100_000,
          "GraphQL query texts (up to 16 KB each) kept parsed and validated; 0: parse every request"));

  /** Every key: the server's own, then each plugin's. */
  public static final List<ConfigKey> ALL = all();

  private static List<ConfigKey> all() {
    List<ConfigKey> keys = new ArrayList<>(OWN);
    keys.add(oneOf("storage.selector", Plugins.STORAGE.get(0).name(),
        Plugins.STORAGE.stream().map(StorageFactory::name).toList(), "storage backend").withAlias("SEXTANT_STORAGE"));
    Plugins.STORAGE.forEach(f -> keys.addAll(f.keys()));
    Plugins.RECEIVERS.forEach(f -> keys.addAll(f.keys())); // each includes its receiver.<name>.enabled
    return List.copyOf(keys);
  }

  private static String defaultCollectorId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.net.UnknownHostException e) {
        host = "sextant";
      }
    }
    return host;
  }
}
