package io.sextant.api.storage;

import java.util.List;

/** Edges seen per minute. */
public interface TopologyStore {
  /** Records that each edge was seen in the given minute bucket; idempotent. */
  void write(List<Edge> edges, long minuteBucket);

  /** Distinct edges of a scope seen in any minute of {@code [startMinute, endMinute]}. */
  List<Edge> read(EdgeScope scope, long startMinute, long endMinute);
}
