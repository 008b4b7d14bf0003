package io.sextant.storage.memory;

import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.TopologyStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Edges grouped by minute bucket, so a time-window read is a range scan over minutes. Bounded by an
 * estimate of its bytes: past {@code maxBytes} it makes room to 90% of it, first by forgetting the
 * edges seen in one minute only (newest first: what a flood of new names brings), then the oldest
 * minutes; a minute that alone would pass it takes no more edges (all counted). So a flood costs
 * itself, not the topology history of the services that were there before it.
 */
final class MemoryTopologyStore implements TopologyStore {
  /** An edge's fixed cost: set node, record, its strings' headers. */
  private static final int EDGE_BYTES = 160;

  private final ConcurrentSkipListMap<Long, Set<Edge>> byMinute = new ConcurrentSkipListMap<>();
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();

  MemoryTopologyStore(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  private static long weight(Edge e) {
    return EDGE_BYTES + 2L * (e.sourceId().length() + e.destId().length()
        + (e.component() == null ? 0 : e.component().length()));
  }

  @Override
  public synchronized void write(List<Edge> edges, long minuteBucket) {
    Set<Edge> minute = byMinute.computeIfAbsent(minuteBucket, m -> ConcurrentHashMap.newKeySet());
    for (Edge e : edges) {
      if (minute.contains(e)) {
        continue;
      }
      long w = weight(e);
      if (bytes.get() + w > maxBytes) {
        makeRoom(minuteBucket);
      }
      if (bytes.get() + w > maxBytes) {
        evicted.incrementAndGet(); // this minute alone fills the bound
      } else if (minute.add(e)) {
        bytes.addAndGet(w);
      }
    }
  }

  private void makeRoom(long minuteBucket) {
    long target = maxBytes * 9 / 10;
    forgetNewcomers(target);
    while (bytes.get() > target && forgetOldestBefore(minuteBucket)) {
      // then the oldest minutes
    }
  }

  /** Forgets the edges seen in one minute only, newest minute first, until {@code target} bytes are held. */
  private void forgetNewcomers(long target) {
    Set<Edge> once = new HashSet<>();
    Set<Edge> more = new HashSet<>();
    for (Set<Edge> minute : byMinute.values()) {
      for (Edge e : minute) {
        if (!more.contains(e) && !once.add(e)) {
          once.remove(e);
          more.add(e);
        }
      }
    }
    for (Set<Edge> minute : byMinute.descendingMap().values()) {
      for (Iterator<Edge> it = minute.iterator(); it.hasNext() && bytes.get() > target; ) {
        Edge e = it.next();
        if (once.contains(e)) {
          it.remove();
          bytes.addAndGet(-weight(e));
          evicted.incrementAndGet();
        }
      }
      if (bytes.get() <= target) {
        return;
      }
    }
  }

  private boolean forgetOldestBefore(long minuteBucket) {
    Map.Entry<Long, Set<Edge>> oldest = byMinute.firstEntry();
    if (oldest == null || oldest.getKey() >= minuteBucket) {
      return false;
    }
    forget(oldest.getKey());
    return true;
  }

  private void forget(long minute) {
    Set<Edge> gone = byMinute.remove(minute);
    if (gone != null) {
      gone.forEach(e -> bytes.addAndGet(-weight(e)));
      evicted.addAndGet(gone.size());
    }
  }

  long bytes() {
    return bytes.get();
  }

  /** Edges forgotten or not taken to stay within the bound. */
  long evicted() {
    return evicted.get();
  }

  @Override
  public List<Edge> read(Scope scope, long startMinute, long endMinute) {
    Set<Edge> distinct = new java.util.LinkedHashSet<>();
    for (Map.Entry<Long, Set<Edge>> e : byMinute.subMap(startMinute, true, endMinute, true).entrySet()) {
      for (Edge edge : e.getValue()) {
        if (edge.scope() == scope) {
          distinct.add(edge);
        }
      }
    }
    return new ArrayList<>(distinct);
  }

  synchronized void expire(long minuteBefore) {
    for (Long minute : new ArrayList<>(byMinute.headMap(minuteBefore).keySet())) {
      Set<Edge> gone = byMinute.remove(minute);
      gone.forEach(e -> bytes.addAndGet(-weight(e)));
    }
  }
}
