package io.sextant.storage.elasticsearch;

import io.sextant.api.storage.CoveredPartials;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metric partials single-entity reads fetched, every metric per entity and step, least recently
 * used first out once their estimated size passes the bound. Each entry is complete from its
 * first bucket on as of the time its read started, so the next read only needs the documents
 * written since then (less a margin). Copies of one partial are told apart by when they were
 * written: the later copy wins whichever arrives first, so a search that started before a write
 * cannot undo it, and every way in (reads, the follower, this collector's own writes) merges.
 */
final class PartialCache {
  record SeriesKey(String entityId, Step step) {}

  record PartialKey(String metric, long bucket, String writerId, long sequence) {
    static PartialKey of(MetricPartial p) {
      return new PartialKey(p.metric(), p.bucket(), p.writerId(), p.sequence());
    }
  }

  /** A partial and the time its writer sent it ({@code written}); a later copy has a later time. */
  record Stamped(MetricPartial partial, long written) {}

  /**
   * Every partial of an entity's metrics with a bucket in {@code [fromBucket, toBucket]} that was
   * searchable at {@code asOfMillis} (this collector's clock, taken before the search), and maybe
   * later ones. Never changed once made.
   */
  record Series(long fromBucket, long toBucket, long asOfMillis, Map<PartialKey, Stamped> partials,
      long weightBytes) {
    /** What a full read of {@code [fromBucket, toBucket]} found. */
    static Series fetched(long fromBucket, long toBucket, long asOfMillis, Iterable<Stamped> found) {
      return new Series(fromBucket, toBucket, asOfMillis, Map.of(), 0).advance(fromBucket, toBucket, asOfMillis,
          found);
    }

    /**
     * This series narrowed or moved to {@code [newFrom, newTo]}, with each of {@code newer} taking
     * the place of an earlier written copy of the same partial and adding the rest.
     */
    Series advance(long newFrom, long newTo, long newAsOfMillis, Iterable<Stamped> newer) {
      if (newFrom == fromBucket && newTo == toBucket && !changes(newer)) {
        // The usual steady-state read: nothing new in the same window. The map is never changed
        // once made, so the new series shares it instead of copying every partial again.
        return new Series(fromBucket, toBucket, newAsOfMillis, partials, weightBytes);
      }
      Map<PartialKey, Stamped> merged = new LinkedHashMap<>();
      for (Stamped s : partials.values()) {
        if (s.partial().bucket() >= newFrom && s.partial().bucket() <= newTo) {
          merged.put(PartialKey.of(s.partial()), s);
        }
      }
      for (Stamped s : newer) {
        if (s.partial().bucket() >= newFrom && s.partial().bucket() <= newTo) {
          merged.merge(PartialKey.of(s.partial()), s, (old, now) -> now.written() >= old.written() ? now : old);
        }
      }
      // Partials a compacted partial covers were deleted from storage: not kept here either.
      List<MetricPartial> all = new ArrayList<>(merged.size());
      merged.values().forEach(s -> all.add(s.partial()));
      List<MetricPartial> resolved = CoveredPartials.resolve(all);
      if (resolved.size() < merged.size()) {
        Map<PartialKey, Stamped> kept = new LinkedHashMap<>();
        for (MetricPartial p : resolved) {
          PartialKey k = PartialKey.of(p);
          kept.put(k, merged.get(k));
        }
        merged = kept;
      }
      long bytes = 200;
      for (Stamped s : merged.values()) {
        bytes += weight(s.partial());
      }
      return new Series(newFrom, newTo, newAsOfMillis, merged, bytes);
    }

    /** Whether any of {@code newer} in this window is missing here or a later copy. */
    private boolean changes(Iterable<Stamped> newer) {
      for (Stamped s : newer) {
        if (s.partial().bucket() < fromBucket || s.partial().bucket() > toBucket) {
          continue;
        }
        Stamped had = partials.get(PartialKey.of(s.partial()));
        if (had == null || (had != s && s.written() >= had.written())) {
          return true;
        }
      }
      return false;
    }

    private static long weight(MetricPartial p) {
      return 140 + 2L * (p.writerId().length() + p.entityId().length()) + 8L * p.values().length
          + (p.sketch() == null ? 0 : 16 + p.sketch().length);
    }
  }

  /**
   * A series with what its readers asked: the follower keeps the series that reads came back to
   * within the idle time up to date, moves their end along and, once per idle time, drops the
   * buckets before the earliest one asked in it.
   */
  private static final class Entry {
    Series series;
    long lastReadMillis;
    /** Earliest bucket asked since {@code narrowedMillis}. */
    long askedFrom = Long.MAX_VALUE;
    long narrowedMillis;
    /** Newest bucket asked since the follower last looked. */
    long askedTo = Long.MIN_VALUE;

    Entry(Series series, long nowMillis) {
      this.series = series;
      this.lastReadMillis = nowMillis;
      this.narrowedMillis = nowMillis;
    }
  }

  /** A followed series and the window its next version covers. */
  record Followed(SeriesKey key, Series series, long fromBucket, long toBucket) {}

  private final long maxBytes;
  private final LinkedHashMap<SeriesKey, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  PartialCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  synchronized Series get(SeriesKey key) {
    Entry e = entries.get(key);
    return e == null ? null : e.series;
  }

  /** As {@link #get}, for a reader of {@code [from, to]} at {@code nowMillis}: the follower keeps it fresh. */
  synchronized Series read(SeriesKey key, long from, long to, long nowMillis) {
    Entry e = entries.get(key);
    if (e == null) {
      return null;
    }
    e.lastReadMillis = nowMillis;
    e.askedFrom = Math.min(e.askedFrom, from);
    e.askedTo = Math.max(e.askedTo, to);
    return e.series;
  }

  /**
   * Merges {@code series} with what is kept for {@code key} (either may hold later copies) and
   * keeps the result as of the later of the two; answers the merge over {@code series}' window.
   * A series larger than the whole bound is not kept.
   */
  synchronized Series put(SeriesKey key, Series series) {
    Entry e = entries.get(key);
    Series mine = series;
    Series kept = series;
    if (e != null) {
      Series old = e.series;
      mine = series.advance(series.fromBucket(), series.toBucket(), series.asOfMillis(), old.partials().values());
      kept = old.asOfMillis() > series.asOfMillis()
          ? old.advance(old.fromBucket(), old.toBucket(), old.asOfMillis(), mine.partials().values()) : mine;
      bytes -= old.weightBytes();
    }
    if (kept.weightBytes() > maxBytes) {
      entries.remove(key);
      return mine;
    }
    if (e == null) {
      e = new Entry(kept, kept.asOfMillis());
      entries.put(key, e);
    } else {
      e.series = kept;
    }
    bytes += kept.weightBytes();
    trim(e);
    return mine;
  }

  /**
   * Adds what this collector just wrote, stamped as sent at {@code sent}, to the series that hold
   * its buckets, so its own data never waits for a search; rows of series not kept are skipped
   * before anything is made of them (their next read searches).
   */
  synchronized void written(List<PartialRow> rows, long sent) {
    Map<SeriesKey, List<Stamped>> held = new HashMap<>();
    for (PartialRow r : rows) {
      SeriesKey key = new SeriesKey(r.entityId(), r.step());
      if (!entries.containsKey(key)) { // a lookup only, no partials made, for series not held
        continue;
      }
      List<Stamped> series = held.computeIfAbsent(key, k -> new ArrayList<>());
      for (PartialRow.Cell c : r.cells()) {
        series.add(new Stamped(new MetricPartial(c.metric(), r.entityId(), r.step(), r.bucket(), r.writerId(),
            r.sequence(), c.values(), c.sketch(), r.closed(), r.covers()), sent));
      }
    }
    for (Map.Entry<SeriesKey, List<Stamped>> w : held.entrySet()) {
      Entry e = entries.get(w.getKey());
      Series s = e.series;
      Series next = s.advance(s.fromBucket(), s.toBucket(), s.asOfMillis(), w.getValue());
      bytes += next.weightBytes() - s.weightBytes();
      e.series = next;
    }
    trim(null);
  }

  /** Drops least recently used series, except {@code keep}, until the bound holds. */
  private void trim(Entry keep) {
    Iterator<Entry> eldest = entries.values().iterator();
    while (bytes > maxBytes && eldest.hasNext()) {
      Entry e = eldest.next();
      if (e != keep) {
        bytes -= e.series.weightBytes();
        eldest.remove();
      }
    }
  }

  /**
   * The series read in the last {@code idleMillis}, each with the window its next version should
   * cover: to {@code ahead} buckets past the newest one asked since the previous call (so the next
   * minute is there before anyone asks), from the earliest asked in the last {@code idleMillis}.
   * Does not make them more recently used.
   */
  synchronized List<Followed> followed(long nowMillis, long idleMillis, int ahead) {
    List<Followed> out = new ArrayList<>();
    for (Map.Entry<SeriesKey, Entry> kv : entries.entrySet()) {
      Entry e = kv.getValue();
      if (e.lastReadMillis < nowMillis - idleMillis) {
        continue;
      }
      Series s = e.series;
      long from = s.fromBucket();
      if (nowMillis - e.narrowedMillis >= idleMillis) {
        if (e.askedFrom != Long.MAX_VALUE) {
          from = Math.max(from, e.askedFrom);
        }
        e.askedFrom = Long.MAX_VALUE;
        e.narrowedMillis = nowMillis;
      }
      long to = e.askedTo == Long.MIN_VALUE ? s.toBucket()
          : Math.max(s.toBucket(), TimeBuckets.plus(e.askedTo, kv.getKey().step(), ahead));
      e.askedTo = Long.MIN_VALUE;
      out.add(new Followed(kv.getKey(), s, Math.min(from, to), to));
    }
    return out;
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return entries.size();
  }
}
