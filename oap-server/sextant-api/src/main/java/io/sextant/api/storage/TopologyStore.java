package io.sextant.api.storage;

import io.sextant.api.model.Scope;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Edges seen per minute. */
public interface TopologyStore {
  /** Records that each edge was seen in the given minute bucket; idempotent. */
  void write(List<Edge> edges, long minuteBucket);

  /** Records the edges of several minutes at once; a store may merge what they share. */
  default void write(Map<Long, ? extends Collection<Edge>> edgesByMinute) {
    edgesByMinute.forEach((minute, edges) -> write(List.copyOf(edges), minute));
  }

  /**
   * Distinct edges of a scope seen in any minute of {@code [startMinute, endMinute]}. The list is
   * never changed once answered: a caller may keep it and compare it with a later answer (the
   * global topology does; answering an unchanged window with the same list makes that cheap).
   */
  List<Edge> read(Scope scope, long startMinute, long endMinute);
}
