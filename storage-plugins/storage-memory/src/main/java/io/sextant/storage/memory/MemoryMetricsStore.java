package io.sextant.storage.memory;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Partials indexed by metric, then (entity, step), then bucket. Over {@code maxPartials}, the oldest
 * minute buckets are evicted first (then hours), and every eviction is counted.
 */
final class MemoryMetricsStore implements MetricsStore {
  private final ConcurrentHashMap<String, ConcurrentHashMap<SeriesKey, ConcurrentSkipListMap<Long, Map<PartialKey, MetricPartial>>>>
      byMetric = new ConcurrentHashMap<>();
  private final AtomicLong size = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();
  private final int maxPartials;

  MemoryMetricsStore(int maxPartials) {
    this.maxPartials = maxPartials;
  }

  @Override
  public void write(List<MetricPartial> partials) {
    for (MetricPartial p : partials) {
      Map<PartialKey, MetricPartial> bucket =
          byMetric
              .computeIfAbsent(p.metric(), m -> new ConcurrentHashMap<>())
              .computeIfAbsent(new SeriesKey(p.entityId(), p.step()), k -> new ConcurrentSkipListMap<>())
              .computeIfAbsent(p.bucket(), b -> new ConcurrentHashMap<>());
      if (bucket.put(new PartialKey(p.writerId(), p.sequence()), p) == null) {
        size.incrementAndGet();
      }
    }
    if (size.get() > maxPartials) {
      evictOldest();
    }
  }

  @Override
  public List<MetricPartial> read(
      String metric, Collection<String> entityIds, Step step, long startBucket, long endBucket) {
    var series = byMetric.get(metric);
    List<MetricPartial> out = new ArrayList<>();
    if (series == null) {
      return out;
    }
    if (entityIds != null) {
      for (String id : entityIds) {
        collect(series.get(new SeriesKey(id, step)), startBucket, endBucket, out);
      }
    } else {
      series.forEach((key, buckets) -> {
        if (key.step() == step) {
          collect(buckets, startBucket, endBucket, out);
        }
      });
    }
    return out;
  }

  private static void collect(ConcurrentSkipListMap<Long, Map<PartialKey, MetricPartial>> buckets, long start,
      long end, List<MetricPartial> out) {
    if (buckets != null) {
      for (Map<PartialKey, MetricPartial> partials : buckets.subMap(start, true, end, true).values()) {
        out.addAll(partials.values());
      }
    }
  }

  void expire(long minuteBefore, long hourBefore, long dayBefore) {
    byMetric.values().forEach(series -> series.forEach((key, buckets) -> {
      long before = switch (key.step()) {
        case MINUTE -> minuteBefore;
        case HOUR -> hourBefore;
        case DAY -> dayBefore;
      };
      dropBefore(buckets, before, false);
    }));
  }

  /** Finds the oldest minute bucket held and drops everything up to it, until under the bound. */
  private synchronized void evictOldest() {
    for (Step step : new Step[] {Step.MINUTE, Step.HOUR, Step.DAY}) {
      while (size.get() > maxPartials) {
        long oldest = Long.MAX_VALUE;
        for (var series : byMetric.values()) {
          for (var e : series.entrySet()) {
            if (e.getKey().step() == step && !e.getValue().isEmpty()) {
              oldest = Math.min(oldest, e.getValue().firstKey());
            }
          }
        }
        if (oldest == Long.MAX_VALUE) {
          break;
        }
        long cutoff = oldest + 1;
        byMetric.values().forEach(series -> series.forEach((key, buckets) -> {
          if (key.step() == step) {
            dropBefore(buckets, cutoff, true);
          }
        }));
      }
    }
  }

  private void dropBefore(ConcurrentSkipListMap<Long, Map<PartialKey, MetricPartial>> buckets, long before,
      boolean countAsEviction) {
    var head = buckets.headMap(before);
    for (Map<PartialKey, MetricPartial> partials : head.values()) {
      size.addAndGet(-partials.size());
      if (countAsEviction) {
        evicted.addAndGet(partials.size());
      }
    }
    head.clear();
  }

  long evicted() {
    return evicted.get();
  }

  long size() {
    return size.get();
  }

  private record SeriesKey(String entityId, Step step) {}

  /** Which accumulation of a bucket a partial is: the writer shares one id string for all. */
  private record PartialKey(String writerId, long sequence) {}
}
