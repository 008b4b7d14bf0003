package io.sextant.storage.elasticsearch;

import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The edges topology reads found, per scope and window of minutes, least recently used first out
 * once their estimated size passes the bound. An edge seen in a window stays in it (edges are never
 * taken back), so whatever arrives — a read's answer, the follower's, this collector's own writes —
 * is added, in any order: a slow search can only add less, never remove.
 */
final class TopologyWindows {
  record Window(Scope scope, long startMinute, long endMinute) {}

  /**
   * A window's edges (by key, never changed once made; and as a list, made once per change, which
   * every read of an unchanged window shares) and when the oldest search behind them started.
   */
  record Edges(Map<String, Edge> byKey, List<Edge> list, long asOfMillis, long weightBytes) {
    static Edges none(long asOfMillis) {
      return new Edges(Map.of(), List.of(), asOfMillis, 100);
    }

    Edges with(Collection<Edge> more, long asOf) {
      Map<String, Edge> merged = null;
      long bytes = weightBytes;
      for (Edge e : more) {
        String key = EsTopologyStore.key(e);
        if (!byKey.containsKey(key) && (merged == null || !merged.containsKey(key))) {
          if (merged == null) {
            merged = new LinkedHashMap<>(byKey);
          }
          merged.put(key, e);
          bytes += weight(key);
        }
      }
      return merged == null ? new Edges(byKey, list, asOf, bytes)
          : new Edges(merged, List.copyOf(merged.values()), asOf, bytes);
    }

    private static long weight(String key) {
      return 128 + 4L * key.length(); // the key and the edge's ids (both UTF-16), its slot in the list
    }
  }

  private static final class Entry {
    Edges edges;
    long lastReadMillis;

    Entry(Edges edges, long lastReadMillis) {
      this.edges = edges;
      this.lastReadMillis = lastReadMillis;
    }
  }

  private final long maxBytes;
  private final LinkedHashMap<Window, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  TopologyWindows(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** What is kept for {@code window}, or null; a read at {@code nowMillis}, so the follower keeps it. */
  synchronized Edges read(Window window, long nowMillis) {
    Entry e = entries.get(window);
    if (e == null) {
      return null;
    }
    e.lastReadMillis = nowMillis;
    return e.edges;
  }

  /**
   * Adds the edges a search that started at {@code asOfMillis} found; the window is then as of the
   * later of that and what it was. Answers everything kept for the window. A window not kept yet
   * is kept as read at {@code readMillis} (0: not read, the follower leaves it).
   */
  synchronized Edges found(Window window, Collection<Edge> found, long asOfMillis, long readMillis) {
    Entry e = entries.get(window);
    Edges next;
    if (e == null) {
      next = Edges.none(asOfMillis).with(found, asOfMillis);
      if (next.weightBytes() > maxBytes) {
        return next;
      }
      e = new Entry(next, readMillis);
      entries.put(window, e);
    } else {
      next = e.edges.with(found, Math.max(asOfMillis, e.edges.asOfMillis()));
      bytes -= e.edges.weightBytes();
      if (next.weightBytes() > maxBytes) {
        entries.remove(window);
        return next;
      }
      e.edges = next;
    }
    bytes += next.weightBytes();
    trim(e);
    return next;
  }

  /** Adds what this collector wrote for {@code minute} to the windows holding that minute. */
  synchronized void written(long minute, Collection<Edge> edges) {
    for (Map.Entry<Window, Entry> kv : entries.entrySet()) {
      Window w = kv.getKey();
      if (minute < w.startMinute() || minute > w.endMinute()) {
        continue;
      }
      List<Edge> ofScope = new ArrayList<>();
      for (Edge edge : edges) {
        if (edge.scope() == w.scope()) {
          ofScope.add(edge);
        }
      }
      Entry e = kv.getValue();
      Edges next = e.edges.with(ofScope, e.edges.asOfMillis());
      bytes += next.weightBytes() - e.edges.weightBytes();
      e.edges = next;
    }
    trim(null);
  }

  /** The windows read since {@code sinceMillis}, without making them more recently used. */
  synchronized List<Window> followed(long sinceMillis) {
    List<Window> out = new ArrayList<>();
    entries.forEach((w, e) -> {
      if (e.lastReadMillis >= sinceMillis) {
        out.add(w);
      }
    });
    return out;
  }

  private void trim(Entry keep) {
    Iterator<Entry> eldest = entries.values().iterator();
    while (bytes > maxBytes && eldest.hasNext()) {
      Entry e = eldest.next();
      if (e != keep) {
        bytes -= e.edges.weightBytes();
        eldest.remove();
      }
    }
  }

  synchronized long bytes() {
    return bytes;
  }
}
