package io.sextant.storage.memory;

import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.TopologyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** Edges grouped by minute bucket, so a time-window read is a range scan over minutes. */
final class MemoryTopologyStore implements TopologyStore {
  private final ConcurrentSkipListMap<Long, Set<Edge>> byMinute = new ConcurrentSkipListMap<>();

  @Override
  public void write(List<Edge> edges, long minuteBucket) {
    byMinute.computeIfAbsent(minuteBucket, m -> ConcurrentHashMap.newKeySet()).addAll(edges);
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

  void expire(long minuteBefore) {
    byMinute.headMap(minuteBefore).clear();
  }
}
