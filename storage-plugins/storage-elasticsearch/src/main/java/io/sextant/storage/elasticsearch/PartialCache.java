package io.sextant.storage.elasticsearch;

import io.sextant.api.storage.CoveredPartials;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metric partials single-entity reads fetched, every metric per entity and step, least recently
 * used first out once their estimated size passes the bound. Each entry is complete from its
 * first bucket on as of the time its read started, so the next read only needs the documents
 * written since then (less a margin) and replaces partials by key: a rewritten partial replaces
 * its older copy, a late one from any collector is added.
 */
final class PartialCache {
  record SeriesKey(String entityId, Step step) {}

  record PartialKey(String metric, long bucket, String writerId, long sequence) {
    static PartialKey of(MetricPartial p) {
      return new PartialKey(p.metric(), p.bucket(), p.writerId(), p.sequence());
    }
  }

  /**
   * Every partial of an entity's metrics with a bucket in {@code [fromBucket, toBucket]} that was searchable
   * at {@code asOfMillis} (this collector's clock, taken before the search). Never changed once
   * made.
   */
  record Series(long fromBucket, long toBucket, long asOfMillis, Map<PartialKey, MetricPartial> partials,
      long weightBytes) {
    /** What a full read of {@code [fromBucket, toBucket]} found. */
    static Series fetched(long fromBucket, long toBucket, long asOfMillis, Iterable<MetricPartial> found) {
      return new Series(fromBucket, toBucket, asOfMillis, Map.of(), 0).advance(fromBucket, toBucket, asOfMillis,
          found);
    }

    /**
     * This series narrowed to {@code [newFrom, newTo]}, with {@code newer} replacing partials of the
     * same key and adding the rest.
     */
    Series advance(long newFrom, long newTo, long newAsOfMillis, Iterable<MetricPartial> newer) {
      if (newFrom == fromBucket && newTo == toBucket && !newer.iterator().hasNext()) {
        // The usual steady-state read: nothing new in the same window. The map is never changed
        // once made, so the new series shares it instead of copying every partial again.
        return new Series(fromBucket, toBucket, newAsOfMillis, partials, weightBytes);
      }
      Map<PartialKey, MetricPartial> merged = new LinkedHashMap<>();
      long bytes = 200;
      for (MetricPartial p : partials.values()) {
        if (p.bucket() >= newFrom && p.bucket() <= newTo) {
          merged.put(PartialKey.of(p), p);
        }
      }
      for (MetricPartial p : newer) {
        if (p.bucket() >= newFrom && p.bucket() <= newTo) {
          merged.put(PartialKey.of(p), p);
        }
      }
      // Partials a compacted partial covers were deleted from storage: not kept here either.
      List<MetricPartial> resolved = CoveredPartials.resolve(new ArrayList<>(merged.values()));
      if (resolved.size() < merged.size()) {
        merged = new LinkedHashMap<>();
        for (MetricPartial p : resolved) {
          merged.put(PartialKey.of(p), p);
        }
      }
      for (MetricPartial p : merged.values()) {
        bytes += weight(p);
      }
      return new Series(newFrom, newTo, newAsOfMillis, merged, bytes);
    }

    private static long weight(MetricPartial p) {
      return 120 + 2L * (p.writerId().length() + p.entityId().length()) + 8L * p.values().length
          + (p.sketch() == null ? 0 : 16 + p.sketch().length);
    }
  }

  private final long maxBytes;
  private final LinkedHashMap<SeriesKey, Series> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  PartialCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  synchronized Series get(SeriesKey key) {
    return entries.get(key);
  }

  /**
   * Keeps {@code series} unless a read that started later already left a newer one; a series
   * larger than the whole bound is not kept.
   */
  synchronized void put(SeriesKey key, Series series) {
    Series old = entries.get(key);
    if (old != null && old.asOfMillis() > series.asOfMillis()) {
      return;
    }
    if (old != null) {
      entries.remove(key);
      bytes -= old.weightBytes();
    }
    if (series.weightBytes() > maxBytes) {
      return;
    }
    entries.put(key, series);
    bytes += series.weightBytes();
    Iterator<Series> eldest = entries.values().iterator();
    while (bytes > maxBytes && eldest.hasNext()) {
      bytes -= eldest.next().weightBytes();
      eldest.remove();
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return entries.size();
  }
}
