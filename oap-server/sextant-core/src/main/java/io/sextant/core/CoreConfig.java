package io.sextant.core;

import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.oneOf;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.compact.CompactionConfig;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.spool.SpoolConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;

/**
 * The core's configuration ({@code core.*}), declared beside the code as the plugins declare theirs:
 * this collector's id, the time zone of buckets, the aggregator's bounds, the flusher's rhythm and
 * write queue, the metric catalog's parameters and when compaction runs.
 */
public record CoreConfig(String collectorId, ZoneId timezone, AggregatorLimits limits, FlusherConfig flusher,
    SpoolConfig spool, int maxCachedIds, int maxEndpointsPerService, int maxInstancesPerService,
    int apdexThresholdMillis, CompactionConfig compaction) {
  private static final String P = "core.";

  public static final List<ConfigKey> KEYS = List.of(
      string(P + "collectorId", defaultCollectorId(), "this collector's id, tagged on every partial it writes"),
      string(P + "timezone", ZoneId.systemDefault().getId(), "time zone of time buckets and query durations"),
      integer(P + "flushIntervalMillis", 10_000, 100, 60_000,
          "how often accumulated partials are collected and written: how fresh the newest minute is"),
      integer(P + "closedCollectIntervalMillis", 2000, 100, 60_000,
          "how often closed minutes and late records leave the aggregator for the write queue (bounds its memory)"),
      integer(P + "rollupIntervalMillis", 60_000, 0, 600_000,
          "how often hour and day roll-ups are rewritten: how fresh the current hour and day are"),
      integer(P + "graceMinutes", 1, 0, 60, "minutes a past minute stays open for late records"),
      integer(P + "compactAfterMinutes", 3, 0, 1440,
          "merge every collector's rows of a minute this long past into one row per entity, so reads of closed"
              + " minutes fetch one; 0: off"),
      integer(P + "compactIntervalSeconds", 60, 1, 3600, "how often compaction looks for minutes to compact"),
      integer(P + "compactLookbackMinutes", 10, 0, 1440,
          "how many minutes before the newest due one each pass looks at again (late rows, a dead collector's"
              + " share)"),
      integer(P + "maxAccumulators", 50_000, 1000, 100_000_000,
          "open (entity, minute) accumulators, one per 40 metrics they keep (a mesh entity one, an access-log"
              + " relation three); past it new entities are refused (RESOURCE_EXHAUSTED)"),
      integer(P + "maxLateMinutes", 1440, 1, 100_000, "records older than this are refused"),
      integer(P + "maxFutureMinutes", 10, 0, 1440, "records further in the future than this are refused"),
      integer(P + "maxPendingMegabytes", 96, 1, 1_000_000,
          "memory for partial rows waiting for storage (newer versions replace older); past it the oldest are"
              + " dropped (counted)"),
      optionalString(P + "spool.directory",
          "keep what was accepted and not yet written on disk here (write-ahead spool); unset: off"),
      integer(P + "spool.maxMegabytes", 1024, 16, 10_000_000,
          "disk the spool may use; past it the oldest collections are dropped (counted)"),
      oneOf(P + "spool.fsync", "interval", List.of("never", "interval", "always"),
          "when the spool forces its files to the device: never (a killed process loses nothing, a machine crash"
              + " its last seconds), interval, always (every message)"),
      integer(P + "spool.fsyncIntervalMillis", 1000, 10, 60_000, "with fsync interval, how often"),
      integer(P + "maxCachedIds", 1_000_000, 0, 100_000_000,
          "entity ids cached by name (also at most a 32nd of the heap in bytes)"),
      integer(P + "maxEndpointsPerService", 2000, 1, 10_000_000,
          "distinct endpoints of one service; past it its new endpoints fold into its '<overflow>' endpoint (counted)"),
      integer(P + "maxInstancesPerService", 2000, 1, 10_000_000,
          "distinct instances of one service; past it its new instances fold into its '<overflow>' instance (counted)"),
      integer(P + "apdexThresholdMillis", 500, 1, 3_600_000, "apdex threshold T"));

  /** Reads the keys; {@code core.timezone} must name a zone (the server's validation checks it first). */
  public static CoreConfig load(Settings s) {
    return new CoreConfig(s.string(P + "collectorId"), ZoneId.of(s.string(P + "timezone")),
        new AggregatorLimits(s.integer(P + "maxAccumulators"), s.integer(P + "maxLateMinutes"),
            s.integer(P + "maxFutureMinutes")),
        new FlusherConfig(s.integer(P + "flushIntervalMillis"), s.integer(P + "closedCollectIntervalMillis"),
            s.integer(P + "rollupIntervalMillis"), s.integer(P + "graceMinutes"),
            s.integer(P + "maxPendingMegabytes") * 1024L * 1024),
        spool(s), s.integer(P + "maxCachedIds"), s.integer(P + "maxEndpointsPerService"),
        s.integer(P + "maxInstancesPerService"), s.integer(P + "apdexThresholdMillis"),
        new CompactionConfig(s.integer(P + "compactAfterMinutes"), s.integer(P + "compactIntervalSeconds"),
            s.integer(P + "compactLookbackMinutes")));
  }

  private static SpoolConfig spool(Settings s) {
    String dir = s.string(P + "spool.directory");
    if (dir == null || dir.isBlank()) {
      return null;
    }
    return new SpoolConfig(Path.of(dir), s.integer(P + "spool.maxMegabytes") * 1024L * 1024,
        SpoolConfig.Fsync.valueOf(s.string(P + "spool.fsync").toUpperCase(Locale.ROOT)),
        s.integer(P + "spool.fsyncIntervalMillis"));
  }

  /** The host name, as a pod's name is in Kubernetes: replicas differ without configuration. */
  private static String defaultCollectorId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        host = "sextant";
      }
    }
    return host;
  }
}
