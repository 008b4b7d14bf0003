package io.sextant.storage.memory;

import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.TopologyStore;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.time.Clock;

/**
 * The embedded default store: everything on the heap, bounded by partial, record and document
 * counts and by retention. For trying Sextant and for fast tests; data does not survive a restart.
 */
public final class MemoryStorage implements StorageComponent {
  private final MemoryMetricsStore metrics;
  private final MemoryTopologyStore topology;
  private final MemoryMetadataStore metadata;
  private final MemoryRecordStore records;
  private final MemoryManagementStore management;

  private final MemoryStorageConfig config;

  public MemoryStorage(MemoryStorageConfig config) {
    this(config, Clock.systemUTC());
  }

  /** {@code clock} stamps management documents' update times and tells which entities are new. */
  public MemoryStorage(MemoryStorageConfig config, Clock clock) {
    this.config = config;
    this.metrics = new MemoryMetricsStore(config.maxPartials(), config.maxMetricBytes(), clock);
    this.records = new MemoryRecordStore(config.maxRecords());
    // Services and their edges share a twentieth of the heap: most to the entities, the rest to edges.
    this.metadata = new MemoryMetadataStore(config.maxMetadataBytes() * 3 / 4);
    this.topology = new MemoryTopologyStore(config.maxMetadataBytes() / 4);
    this.management = new MemoryManagementStore(config.maxManagementDocuments(), clock);
  }

  @Override
  public MetricsStore metrics() {
    return metrics;
  }

  @Override
  public TopologyStore topology() {
    return topology;
  }

  @Override
  public MetadataStore metadata() {
    return metadata;
  }

  @Override
  public RecordStore records() {
    return records;
  }

  @Override
  public ManagementStore management() {
    return management;
  }

  /** Whole days, rounded up from the configured minutes and hours. */
  @Override
  public Retention retention() {
    return new Retention(ceilDiv(config.minuteRetentionMinutes(), 1440), ceilDiv(config.hourRetentionHours(), 24),
        config.dayRetentionDays(), ceilDiv(config.recordRetentionMinutes(), 1440));
  }

  private static int ceilDiv(int a, int b) {
    return -Math.floorDiv(-a, b);
  }

  @Override
  public void applyRetention(TimeBuckets buckets) {
    long now = buckets.nowMillis();
    expire(buckets.minuteBucket(now - config.minuteRetentionMinutes() * 60_000L),
        TimeBuckets.rollup(buckets.minuteBucket(now - config.hourRetentionHours() * 3_600_000L), Step.HOUR),
        TimeBuckets.rollup(buckets.minuteBucket(now - config.dayRetentionDays() * 86_400_000L), Step.DAY));
    records.expire(now - config.recordRetentionMinutes() * 60_000L);
  }

  /** Drops data in buckets older than the given ones. */
  public void expire(long minuteBefore, long hourBefore, long dayBefore) {
    metrics.expire(minuteBefore, hourBefore, dayBefore);
    topology.expire(minuteBefore);
    // Metadata lives as long as the longest-kept metrics that could refer to it.
    metadata.expire(dayBefore * 10_000);
  }

  /** Partials dropped to stay under {@code maxPartials} and {@code maxMetricMegabytes}. */
  public long evictedPartials() {
    return metrics.evicted();
  }

  public long partialCount() {
    return metrics.size();
  }

  /** Approximate heap the metric partials take. */
  public long partialBytes() {
    return metrics.bytes();
  }

  /** Approximate heap the services, instances, endpoints and processes take. */
  public long metadataBytes() {
    return metadata.bytes();
  }

  /** Services, instances, endpoints and processes forgotten to stay within their bound. */
  public long evictedMetadata() {
    return metadata.evicted();
  }

  /** Approximate heap the topology edges take. */
  public long edgeBytes() {
    return topology.bytes();
  }

  /** Edges forgotten or not taken to stay within their bound. */
  public long evictedEdges() {
    return topology.evicted();
  }

  /** Records dropped to stay under {@code maxRecords}. */
  public long evictedRecords() {
    return records.evicted();
  }

  public long recordCount() {
    return records.size();
  }

  @Override
  public void close() {}
}
