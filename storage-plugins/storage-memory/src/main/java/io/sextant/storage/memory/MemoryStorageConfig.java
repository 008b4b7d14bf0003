package io.sextant.storage.memory;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Bounds of the in-memory store: how many metric partials (and how much heap for them: {@code
 * maxMetricMegabytes}, 0 for a fifth of the JVM's maximum heap), records and management
 * documents it keeps at most, and how long minute, hour and day data and records are kept.
 */
public record MemoryStorageConfig(
    int maxPartials, int minuteRetentionMinutes, int hourRetentionHours, int dayRetentionDays,
    int maxRecords, int recordRetentionMinutes, int maxManagementDocuments, int maxMetricMegabytes) {

  private static final String P = "storage.memory.";

  /** The keys this plugin reads, with today's paths, defaults and ranges. */
  public static final List<ConfigKey> KEYS = List.of(
      integer(P + "maxPartials", 600_000, 1000, 500_000_000,
          "metric partials held; past it the new entities' (every series younger than two minutes), then the"
              + " oldest buckets are evicted (counted)"),
      integer(P + "minuteRetentionMinutes", 1440, 60, 100_000, "how long minute data is kept"),
      integer(P + "hourRetentionHours", 168, 1, 100_000, "how long hour data is kept"),
      integer(P + "dayRetentionDays", 30, 1, 10_000, "how long day data is kept"),
      integer(P + "maxRecords", 50_000, 100, 100_000_000,
          "records held (profiling samples, sampled calls, events); past it the oldest are evicted (counted)"),
      integer(P + "recordRetentionMinutes", 1440, 60, 100_000, "how long records are kept"),
      integer(P + "maxManagementDocuments", 10_000, 10, 1_000_000,
          "management documents held (UI templates, tasks, policies); past it creating one fails"),
      integer(P + "maxMetricMegabytes", 0, 0, 1_000_000,
          "heap for metric partials, past which the new entities', then the oldest buckets are evicted (counted);"
              + " 0: a fifth of the maximum heap"));

  /** The given bound of partials, every other setting at its default. */
  public MemoryStorageConfig(int maxPartials) {
    this(maxPartials, 1440, 168, 30, 50_000, 1440, 10_000, 0);
  }

  /** Reads the {@code storage.memory.*} keys. */
  public static MemoryStorageConfig load(Settings s) {
    return new MemoryStorageConfig(s.integer(P + "maxPartials"), s.integer(P + "minuteRetentionMinutes"),
        s.integer(P + "hourRetentionHours"), s.integer(P + "dayRetentionDays"), s.integer(P + "maxRecords"),
        s.integer(P + "recordRetentionMinutes"), s.integer(P + "maxManagementDocuments"),
        s.integer(P + "maxMetricMegabytes"));
  }

  /** The heap services, instances, endpoints and processes may take: a twentieth of the maximum heap. */
  public long maxMetadataBytes() {
    return Runtime.getRuntime().maxMemory() / 20;
  }

  /** The heap the metric partials may take, in bytes. */
  public long maxMetricBytes() {
    return maxMetricMegabytes > 0 ? maxMetricMegabytes * 1024L * 1024 : Runtime.getRuntime().maxMemory() / 5;
  }
}
