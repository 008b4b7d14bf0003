package io.sextant.storage.memory;

import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records per kind in a tree ordered by (time, id), so a read walks its window newest first and
 * retention cuts a head off. Over {@code maxRecords}, the oldest records of any kind go first, and
 * every eviction is counted. One lock: records are written in small batches, not on the hot path.
 */
final class MemoryRecordStore implements RecordStore {
  private static final Comparator<Slot> ORDER = Comparator.comparingLong(Slot::time).thenComparing(Slot::id);

  private final Map<String, Kind> kinds = new HashMap<>();
  private final AtomicLong evicted = new AtomicLong();
  private final int maxRecords;
  private int size;

  MemoryRecordStore(int maxRecords) {
    this.maxRecords = maxRecords;
  }

  private record Slot(long time, String id) {}

  /** One kind's records by (time, id), and each id's time, to replace a record written again. */
  private static final class Kind {
    final TreeMap<Slot, StoredRecord> byTime = new TreeMap<>(ORDER);
    final Map<String, Long> timeById = new HashMap<>();
  }

  @Override
  public synchronized void write(List<StoredRecord> records) {
    for (StoredRecord r : records) {
      Kind kind = kinds.computeIfAbsent(r.kind(), k -> new Kind());
      Long before = kind.timeById.put(r.id(), r.timeMillis());
      if (before != null) {
        kind.byTime.remove(new Slot(before, r.id()));
        size--;
      }
      kind.byTime.put(new Slot(r.timeMillis(), r.id()), r);
      size++;
    }
    while (size > maxRecords) {
      evictOldest();
    }
  }

  private void evictOldest() {
    Kind oldest = null;
    for (Kind k : kinds.values()) {
      if (!k.byTime.isEmpty() && (oldest == null || ORDER.compare(k.byTime.firstKey(), oldest.byTime.firstKey()) < 0)) {
        oldest = k;
      }
    }
    var first = oldest.byTime.pollFirstEntry();
    oldest.timeById.remove(first.getKey().id());
    size--;
    evicted.incrementAndGet();
  }

  @Override
  public synchronized List<StoredRecord> read(RecordQuery q) {
    List<StoredRecord> out = new ArrayList<>();
    Kind kind = kinds.get(q.kind());
    if (kind == null || q.startMillis() > q.endMillis()) {
      return out;
    }
    // Every id sorts after "" at one time; the window's upper end is the next millisecond's start.
    NavigableMap<Slot, StoredRecord> window = q.endMillis() == Long.MAX_VALUE
        ? kind.byTime.tailMap(new Slot(q.startMillis(), ""), true)
        : kind.byTime.subMap(new Slot(q.startMillis(), ""), true, new Slot(q.endMillis() + 1, ""), false);
    for (StoredRecord r : window.descendingMap().values()) {
      if ((q.entityIds() == null || q.entityIds().contains(r.entityId())) && r.tags().containsAll(q.tags())) {
        out.add(r);
        if (out.size() == q.limit()) {
          break;
        }
      }
    }
    return out;
  }

  /** Drops records older than {@code beforeMillis}; not counted as evictions. */
  synchronized void expire(long beforeMillis) {
    for (Kind kind : kinds.values()) {
      var head = kind.byTime.headMap(new Slot(beforeMillis, ""), false);
      head.keySet().forEach(s -> kind.timeById.remove(s.id()));
      size -= head.size();
      head.clear();
    }
    kinds.values().removeIf(k -> k.byTime.isEmpty());
  }

  long evicted() {
    return evicted.get();
  }

  synchronized long size() {
    return size;
  }
}
