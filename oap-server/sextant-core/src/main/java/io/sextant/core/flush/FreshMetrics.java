package io.sextant.core.flush;

import io.sextant.api.storage.CoveredPartials;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricGroup;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Metric reads that include what this collector accumulated but has not stored yet, so its own
 * data is visible to queries as soon as a record is accepted rather than after the flush
 * interval and the write. Reads, for the asked metric, in the order data flows: the aggregator's
 * live accumulators (minute step only), rows queued for storage, the batch being written, then
 * storage. A partial (entity, bucket, writer, sequence) found in several places is taken from the
 * first, the newest: an accumulator only grows, so a later place holds an older or equal copy, and
 * reading downstream last means a version moving on during the read is found where it went.
 *
 * <p>Hour and day partials come from queued rows and storage only: the flusher rebuilds them every
 * {@code core.rollupIntervalMillis}. Other collectors' data is visible once they have written it.
 * Writes go to storage unchanged. Wraps whatever the storage hands out on each read, so a store
 * decorated otherwise (a cache) composes.
 */
public final class FreshMetrics implements MetricsStore {
  private final LiveMetrics live;
  private final Supplier<MetricsStore> stored;
  private final Map<String, Located> metrics = new HashMap<>();

  public FreshMetrics(LiveMetrics live, Supplier<MetricsStore> stored) {
    this.live = live;
    this.stored = stored;
    for (MetricGroup group : live.groups()) {
      MetricDefinition[] defs = group.definitions();
      for (int i = 0; i < defs.length; i++) {
        metrics.put(defs[i].name(), new Located(group, i));
      }
    }
  }

  @Override
  public void write(List<PartialRow> rows) {
    stored.get().write(rows);
  }

  @Override
  public List<MetricPartial> read(String metric, Collection<String> entityIds, Step step, long startBucket,
      long endBucket) {
    Located at = metrics.get(metric);
    if (at == null) {
      return stored.get().read(metric, entityIds, step, startBucket, endBucket);
    }
    Map<Key, MetricPartial> newest = new LinkedHashMap<>();
    live.unstored(at.group(), at.index(), entityIds, step, startBucket, endBucket,
        p -> newest.putIfAbsent(new Key(p.entityId(), p.bucket(), p.writerId(), p.sequence()), p));
    List<MetricPartial> fromStorage = stored.get().read(metric, entityIds, step, startBucket, endBucket);
    if (newest.isEmpty()) {
      return fromStorage;
    }
    for (MetricPartial p : fromStorage) {
      newest.putIfAbsent(new Key(p.entityId(), p.bucket(), p.writerId(), p.sequence()), p);
    }
    // A closed row still queued (a batch sent again) may be covered by a compacted one in storage.
    return CoveredPartials.resolve(new ArrayList<>(newest.values()));
  }

  private record Located(MetricGroup group, int index) {}

  private record Key(String entityId, long bucket, String writerId, long sequence) {}
}
