package io.sextant.storage.memory;

import io.sextant.api.storage.CoveredPartials;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Partials indexed by metric, then (entity, step), then bucket. A series is a small locked tree of
 * buckets, each holding the partials of its writers in an array (nearly always one), because most
 * series have few buckets and a concurrent map per bucket would cost more than the data. Over
 * {@code maxPartials} partials or {@code maxBytes} of heap (partials differ in size by their
 * sketches, so a count alone does not bound memory), it makes room in two steps, every eviction
 * counted: first the transient entities, those no series of which holds more than one bucket
 * (seen in one minute only), newest first, which is what a flood of new names brings; then, if
 * that is not enough, the oldest minute buckets (then hours, then days). So a flood costs itself,
 * not the history of the entities the mesh had before it. Transience is judged by the data, not
 * by the clock: a flood's names are still transient minutes later, when an age rule would call them
 * established and drop everyone's oldest minutes for them.
 */
final class MemoryMetricsStore implements MetricsStore {
  private final ConcurrentHashMap<String, ConcurrentHashMap<SeriesKey, Series>> byMetric = new ConcurrentHashMap<>();
  private final AtomicLong size = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();
  private final int maxPartials;
  private final long maxBytes;
  private final Clock clock;

  MemoryMetricsStore(int maxPartials, long maxBytes, Clock clock) {
    this.maxPartials = maxPartials;
    this.maxBytes = maxBytes;
    this.clock = clock;
  }

  @Override
  public void write(List<PartialRow> rows) {
    for (PartialRow row : rows) {
      for (MetricPartial p : row.partials()) {
        put(p);
      }
      // Within the batch, not after it: a flush of many entities must not hold the bound twice over.
      if (over(1.0)) {
        makeRoom();
      }
    }
  }

  /** Over {@code share} of either bound. */
  private boolean over(double share) {
    return size.get() > maxPartials * share || bytes.get() > maxBytes * share;
  }

  /**
   * Approximate heap bytes one held partial costs: the record, its arrays, its series (tree, key,
   * map node), measured with a class histogram under many entities (about 300 bytes and the sketch).
   */
  static long weight(MetricPartial p) {
    return 300 + 2L * p.entityId().length() + 8L * p.values().length
        + (p.sketch() == null ? 0 : 16 + p.sketch().length) + 48L * p.covers().size();
  }

  private void put(MetricPartial p) {
    Series series = byMetric
        .computeIfAbsent(p.metric(), m -> new ConcurrentHashMap<>())
        .computeIfAbsent(new SeriesKey(p.entityId(), p.step()), k -> new Series(clock.millis()));
    series.put(p, size, bytes);
  }

  @Override
  public List<MetricPartial> read(
      String metric, Collection<String> entityIds, Step step, long startBucket, long endBucket) {
    Map<SeriesKey, Series> series = byMetric.get(metric);
    List<MetricPartial> out = new ArrayList<>();
    if (series == null) {
      return out;
    }
    if (entityIds != null) {
      for (String id : entityIds) {
        Series s = series.get(new SeriesKey(id, step));
        if (s != null) {
          s.collect(startBucket, endBucket, out);
        }
      }
    } else {
      series.forEach((key, s) -> {
        if (key.step() == step) {
          s.collect(startBucket, endBucket, out);
        }
      });
    }
    return CoveredPartials.resolve(out);
  }

  /**
   * Replaces, per metric and entity of the share, the bucket's closed partials by their merge, under
   * the series' lock, so a read sees either the partials or the merge. One collector writes here,
   * so this matters for late data (a new sequence beside the closed one). The counts are of
   * partials (one per metric), as this store keeps them, not rows.
   */
  @Override
  public Compaction compact(Step step, long bucket, int share, int shares, RowMerger merger) {
    long read = 0;
    long created = 0;
    long replaced = 0;
    for (var series : byMetric.entrySet()) {
      for (var e : series.getValue().entrySet()) {
        if (e.getKey().step() == step && PartialRow.slot(e.getKey().entityId()) % shares == share) {
          long[] counts = e.getValue().compact(series.getKey(), bucket, merger, size, bytes);
          read += counts[0];
          created += counts[1];
          replaced += counts[2];
        }
      }
    }
    return new Compaction(read, created, replaced);
  }

  void expire(long minuteBefore, long hourBefore, long dayBefore) {
    byMetric.values().forEach(series -> series.entrySet().removeIf(e -> {
      long before = switch (e.getKey().step()) {
        case MINUTE -> minuteBefore;
        case HOUR -> hourBefore;
        case DAY -> dayBefore;
      };
      e.getValue().dropBefore(before, size, bytes);
      return e.getValue().isEmpty();
    }));
  }

  /**
   * Evicts until under 90% of the bounds, so that the scans over every series run once per tenth of
   * the store, not once per write: transient entities first, then the oldest buckets.
   */
  private synchronized void makeRoom() {
    if (over(0.9)) {
      evictTransients();
    }
    evictOldest();
  }

  /**
   * What one entity holds across metrics and steps, when its oldest series was created, and the
   * most buckets any of its series holds.
   */
  private static final class Holding {
    long partials;
    long bytes;
    long created = Long.MAX_VALUE;
    int spread;
  }

  /**
   * Drops every series of the transient entities, newest first, until under 90% of the bounds or
   * none is left. An entity with more than one minute of history keeps it, however many new ones
   * arrive.
   */
  private void evictTransients() {
    Map<String, Holding> holdings = new HashMap<>();
    for (var series : byMetric.values()) {
      for (var e : series.entrySet()) {
        e.getValue().addTo(holdings.computeIfAbsent(e.getKey().entityId(), k -> new Holding()));
      }
    }
    List<Map.Entry<String, Holding>> transients = new ArrayList<>();
    holdings.forEach((id, h) -> {
      if (h.spread <= 1) {
        transients.add(Map.entry(id, h));
      }
    });
    transients.sort(Comparator.comparingLong((Map.Entry<String, Holding> e) -> e.getValue().created).reversed());
    long partialsToFree = size.get() - (long) (maxPartials * 0.9);
    long bytesToFree = bytes.get() - (long) (maxBytes * 0.9);
    Set<String> victims = new HashSet<>();
    for (Map.Entry<String, Holding> e : transients) {
      if (partialsToFree <= 0 && bytesToFree <= 0) {
        break;
      }
      victims.add(e.getKey());
      partialsToFree -= e.getValue().partials;
      bytesToFree -= e.getValue().bytes;
    }
    if (victims.isEmpty()) {
      return;
    }
    byMetric.values().forEach(series -> series.entrySet().removeIf(e -> {
      if (!victims.contains(e.getKey().entityId())) {
        return false;
      }
      evicted.addAndGet(e.getValue().dropBefore(Long.MAX_VALUE, size, bytes));
      return true;
    }));
  }

  /** Drops the oldest bucket of the finest step held, repeatedly, until under 90% of the bounds. */
  private void evictOldest() {
    for (Step step : Step.values()) {
      while (over(0.9)) {
        long oldest = Long.MAX_VALUE;
        for (var series : byMetric.values()) {
          for (var e : series.entrySet()) {
            if (e.getKey().step() == step) {
              oldest = Math.min(oldest, e.getValue().firstBucket());
            }
          }
        }
        if (oldest == Long.MAX_VALUE) {
          break;
        }
        long cutoff = oldest + 1;
        byMetric.values().forEach(series -> series.entrySet().removeIf(e -> {
          if (e.getKey().step() != step) {
            return false;
          }
          evicted.addAndGet(e.getValue().dropBefore(cutoff, size, bytes));
          return e.getValue().isEmpty();
        }));
      }
    }
  }

  long evicted() {
    return evicted.get();
  }

  long size() {
    return size.get();
  }

  long bytes() {
    return bytes.get();
  }

  private record SeriesKey(String entityId, Step step) {}

  /** One entity's buckets of one metric and step. */
  private static final class Series {
    private final TreeMap<Long, MetricPartial[]> buckets = new TreeMap<>();
    /** When the series was created, in the store's clock's milliseconds. */
    private final long created;

    Series(long created) {
      this.created = created;
    }

    /** Stores or replaces (same writer and sequence) a partial, counting it into the totals. */
    synchronized void put(MetricPartial p, AtomicLong size, AtomicLong bytes) {
      MetricPartial[] held = buckets.get(p.bucket());
      if (held == null) {
        buckets.put(p.bucket(), new MetricPartial[] {p});
      } else {
        for (int i = 0; i < held.length; i++) {
          if (held[i].sequence() == p.sequence() && held[i].writerId().equals(p.writerId())) {
            bytes.addAndGet(weight(p) - weight(held[i]));
            held[i] = p;
            return;
          }
        }
        MetricPartial[] grown = Arrays.copyOf(held, held.length + 1);
        grown[held.length] = p;
        buckets.put(p.bucket(), grown);
      }
      size.incrementAndGet();
      bytes.addAndGet(weight(p));
    }

    /** Merges the bucket's closed partials into one; partials read, created and replaced. */
    synchronized long[] compact(String metric, long bucket, RowMerger merger, AtomicLong size, AtomicLong bytes) {
      MetricPartial[] held = buckets.get(bucket);
      if (held == null) {
        return new long[3];
      }
      Set<String> covered = new HashSet<>();
      long generation = 0;
      for (MetricPartial p : held) {
        if (p.writerId().equals(MetricPartial.COMPACTED)) {
          generation = Math.max(generation, p.sequence());
          covered.addAll(p.covers());
        }
      }
      List<MetricPartial> closed = new ArrayList<>();
      List<MetricPartial> kept = new ArrayList<>();
      List<MetricPartial> gone = new ArrayList<>();
      Set<String> keys = new LinkedHashSet<>();
      for (MetricPartial p : held) {
        if (covered.contains(p.key())) {
          gone.add(p);
        } else if (p.closed()) { // earlier compacted partials too: one compacted partial a bucket
          closed.add(p);
          keys.add(p.key());
          keys.addAll(p.covers());
        } else {
          kept.add(p);
        }
      }
      if (closed.size() < 2) {
        if (!gone.isEmpty()) {
          kept.addAll(closed);
          replace(bucket, kept, gone, null, size, bytes);
        }
        return new long[] {held.length, 0, gone.size()};
      }
      List<PartialRow> rows = new ArrayList<>(closed.size());
      for (MetricPartial p : closed) {
        rows.add(new PartialRow("", p.entityId(), p.step(), bucket, p.writerId(), p.sequence(),
            List.of(new PartialRow.Cell(metric, p.values(), p.sketch()))));
      }
      List<PartialRow.Cell> cells = merger.merge(rows);
      if (cells == null || cells.size() != 1) {
        return new long[] {held.length, 0, 0};
      }
      MetricPartial first = closed.get(0);
      MetricPartial merged = new MetricPartial(metric, first.entityId(), first.step(), bucket, MetricPartial.COMPACTED,
          generation + 1, cells.get(0).values(), cells.get(0).sketch(), true, List.copyOf(keys));
      gone.addAll(closed);
      replace(bucket, kept, gone, merged, size, bytes);
      return new long[] {held.length, 1, gone.size()};
    }

    private void replace(long bucket, List<MetricPartial> kept, List<MetricPartial> gone, MetricPartial added,
        AtomicLong size, AtomicLong bytes) {
      if (added != null) {
        kept.add(added);
        size.incrementAndGet();
        bytes.addAndGet(weight(added));
      }
      buckets.put(bucket, kept.toArray(MetricPartial[]::new));
      for (MetricPartial p : gone) {
        bytes.addAndGet(-weight(p));
      }
      size.addAndGet(-gone.size());
    }

    synchronized void collect(long start, long end, List<MetricPartial> out) {
      for (MetricPartial[] held : buckets.subMap(start, true, end, true).values()) {
        out.addAll(Arrays.asList(held));
      }
    }

    /** Drops the buckets before {@code bucket}, out of the totals; how many partials went. */
    synchronized long dropBefore(long bucket, AtomicLong size, AtomicLong bytes) {
      var head = buckets.headMap(bucket);
      long dropped = 0;
      for (MetricPartial[] held : head.values()) {
        dropped += held.length;
        for (MetricPartial p : held) {
          bytes.addAndGet(-weight(p));
        }
      }
      head.clear();
      size.addAndGet(-dropped);
      return dropped;
    }

    /** Adds what this series holds to its entity's holding. */
    synchronized void addTo(Holding h) {
      for (MetricPartial[] held : buckets.values()) {
        h.partials += held.length;
        for (MetricPartial p : held) {
          h.bytes += weight(p);
        }
      }
      h.created = Math.min(h.created, created);
      h.spread = Math.max(h.spread, buckets.size());
    }

    synchronized long firstBucket() {
      return buckets.isEmpty() ? Long.MAX_VALUE : buckets.firstKey();
    }

    synchronized boolean isEmpty() {
      return buckets.isEmpty();
    }
  }
}
