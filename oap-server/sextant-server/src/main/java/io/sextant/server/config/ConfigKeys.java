package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.oneOf;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;


import io.sextant.api.config.ConfigKey;
import io.sextant.receiver.envoy.als.AlsConfig;
import io.sextant.receiver.envoy.metrics.EnvoyMetricsConfig;
import io.sextant.receiver.mesh.MeshReceiverConfig;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Stream;

/** Every configuration key Sextant knows, with its default. docs/configuration.md lists them. */
public final class ConfigKeys {
  private ConfigKeys() {}

  public static final List<ConfigKey> ALL = Stream.of(List.of(
      string("server.host", "0.0.0.0", "address to listen on"),
      integer("server.grpcPort", 11800, 1, 65535, "gRPC port for receivers (SkyWalking's default)"),
      integer("server.httpPort", 12800, 1, 65535, "HTTP port: /graphql, /metrics, /healthz, /readyz"),
      integer("server.maxGrpcMessageBytes", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024,
          "largest gRPC message accepted on the wire; larger ones fail the stream with RESOURCE_EXHAUSTED"),
      integer("server.maxHttpRequestBytes", 1024 * 1024, 1024, 64 * 1024 * 1024, "largest HTTP request body"),
      integer("server.requestTimeoutSeconds", 30, 1, 3600, "timeout of one GraphQL request"),
      integer("server.shutdownGraceSeconds", 5, 0, 300, "how long in-flight requests may finish on shutdown"),

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
          "memory for partial rows waiting for storage (newer versions replace older); past it the oldest are dropped (counted)"),
      integer("core.maxCachedIds", 1_000_000, 0, 100_000_000, "entity ids cached by name"),
      integer("core.apdexThresholdMillis", 500, 1, 3_600_000, "apdex threshold T"),

      oneOf("storage.selector", "memory", List.of("memory", "elasticsearch"), "storage backend (also SEXTANT_STORAGE)"),
      integer("storage.memory.maxPartials", 600_000, 1000, 500_000_000,
          "metric partials held; past it the oldest buckets are evicted (counted)"),
      integer("storage.memory.minuteRetentionMinutes", 1440, 60, 100_000, "how long minute data is kept"),
      integer("storage.memory.hourRetentionHours", 168, 1, 100_000, "how long hour data is kept"),
      integer("storage.memory.dayRetentionDays", 30, 1, 10_000, "how long day data is kept"),

      string("storage.elasticsearch.hosts", "127.0.0.1:9200", "host:port[,host:port] (also SEXTANT_ES_HOSTS)"),
      bool("storage.elasticsearch.tls", false, "connect with https"),
      optionalString("storage.elasticsearch.trustStorePath", "PKCS#12 trust store for https (empty: the JVM's)"),
      optionalString("storage.elasticsearch.trustStorePassword", "trust store password"),
      optionalString("storage.elasticsearch.username", "basic-auth user (empty: none)"),
      optionalString("storage.elasticsearch.password", "basic-auth password"),
      optionalString("storage.elasticsearch.apiKey", "API key (base64 id:key), instead of a user"),
      string("storage.elasticsearch.indexPrefix", "sextant", "prefix of every index and template"),
      integer("storage.elasticsearch.shards", 1, 1, 100, "primary shards per index (few: avoid shard sprawl)"),
      integer("storage.elasticsearch.replicas", 0, 0, 10, "replicas per index"),
      integer("storage.elasticsearch.requestTimeoutMillis", 30_000, 100, 600_000, "connect and socket timeout"),
      integer("storage.elasticsearch.bulkActions", 2000, 1, 100_000, "documents per _bulk request"),
      integer("storage.elasticsearch.bulkConcurrency", 2, 1, 64, "_bulk requests in flight at once"),
      integer("storage.elasticsearch.minuteRetentionDays", 2, 1, 3650, "days of minute metrics and topology kept"),
      integer("storage.elasticsearch.hourRetentionDays", 15, 1, 3650, "days of hour metrics kept"),
      integer("storage.elasticsearch.dayRetentionDays", 90, 1, 36500, "days of day metrics kept"),
      integer("storage.elasticsearch.metadataCacheSeconds", 10, 0, 3600,
          "seconds a collector reuses the services list it read; its own writes clear it at once"),

      integer("query.maxDepth", 15, 2, 100, "deepest GraphQL selection"),
      integer("query.maxComplexity", 5000, 10, 1_000_000, "most fields in one GraphQL request"),
      integer("query.maxDurationPoints", 10080, 10, 1_000_000, "most time points in one queried duration"),
      integer("query.expressionThreads", 4, 1, 256,
          "threads running the expressions of one request at once (1: one after another)")),
      // Each receiver declares its keys beside its code.
      MeshReceiverConfig.KEYS, AlsConfig.KEYS, EnvoyMetricsConfig.KEYS).flatMap(List::stream).toList();

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
