package io.sextant.core.compact;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.metric.MetricCatalog;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts closed minutes, hours and days, so a read of closed data fetches one row per entity and
 * bucket however many collectors wrote it. Every pass, each collector compacts the minutes from
 * {@code afterMinutes} to {@code lookbackMinutes} more ago for its share of the entities (its
 * place among the live collectors listed in storage, sorted by id). Looking back over several
 * minutes each time, rather than once at each minute, picks up rows closed late (late data, a
 * collector back from a storage outage), rows a compactor killed between creating and deleting
 * left behind, and the share of a collector that died, once the roster no longer lists it; a
 * minute with nothing left to compact costs the store one count.
 *
 * <p>No coordinator: when two collectors' lists differ, a share may be compacted twice (the store
 * creates each compacted row only once) or skipped for a pass (its rows stay; reads are exact
 * either way).
 */
public final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  private final Supplier<MetricsStore> store;
  private final MetricsStore.RowMerger merger;
  private final TimeBuckets buckets;
  private final Supplier<List<String>> collectors;
  private final String collectorId;
  private final int afterMinutes;
  private final int lookbackMinutes;
  private final Counter read;
  private final Counter created;
  private final Counter deleted;
  private final Counter failures;
  private boolean unsupported;

  public Compactor(Supplier<MetricsStore> store, MetricCatalog catalog, TimeBuckets buckets,
      Supplier<List<String>> collectors, String collectorId, int afterMinutes, int lookbackMinutes,
      MeterRegistry registry) {
    this.store = store;
    this.merger = new CellMerger(catalog);
    this.buckets = buckets;
    this.collectors = collectors;
    this.collectorId = collectorId;
    this.afterMinutes = afterMinutes;
    this.lookbackMinutes = lookbackMinutes;
    this.read = counter("sextant_compaction_rows_read", "stored rows compaction read", registry);
    // Not "_created": Prometheus reserves that suffix for a counter's creation time.
    this.created = counter("sextant_compaction_rows_made", "compacted rows made", registry);
    this.deleted = counter("sextant_compaction_rows_deleted", "rows deleted once a compacted row covered them",
        registry);
    this.failures = counter("sextant_compaction_failures", "compactions of a bucket that failed (tried again "
        + "next pass)", registry);
  }

  private static Counter counter(String name, String description, MeterRegistry registry) {
    return Counter.builder(name).description(description).register(registry);
  }

  /**
   * Compacts what is left to compact in the minutes looked back over, and in the hours and days
   * they fall in (an hour's or day's roll-ups close once its last minute is collected, so it is
   * looked at from its start until the lookback has passed its end).
   */
  public void runOnce() {
    if (unsupported) {
      return;
    }
    long due = buckets.minuteBucket(buckets.nowMillis() - afterMinutes * 60_000L);
    long oldest = TimeBuckets.plus(due, Step.MINUTE, -lookbackMinutes);
    List<String> ids = collectors.get().stream().sorted().toList();
    int share = Math.max(0, ids.indexOf(collectorId));
    int shares = ids.contains(collectorId) ? ids.size() : 1;
    RuntimeException failed = null;
    for (Step step : Step.values()) {
      long last = TimeBuckets.rollup(due, step);
      for (long bucket = TimeBuckets.rollup(oldest, step); bucket <= last; bucket = TimeBuckets.plus(bucket, step, 1)) {
        try {
          MetricsStore.Compaction c = store.get().compact(step, bucket, share, shares, merger);
          read.increment(c.rowsRead());
          created.increment(c.rowsCreated());
          deleted.increment(c.rowsDeleted());
        } catch (UnsupportedOperationException e) {
          unsupported = true;
          LOG.info("{}: closed buckets stay one row per collector", e.getMessage());
          return;
        } catch (RuntimeException e) {
          failures.increment();
          failed = e;
        }
      }
    }
    if (failed != null) {
      LOG.warn("compacting some buckets failed (their rows stay as they are; tried again next pass)", failed);
    }
  }
}
