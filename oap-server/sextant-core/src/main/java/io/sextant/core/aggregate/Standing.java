package io.sextant.core.aggregate;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The entities with standing: those with an accumulator in one of the last two minutes collected
 * (the aggregator also counts those open in another minute). A burst of names never seen before
 * may take only a share of the aggregator, so the entities a mesh already has still get their next
 * minutes while a misconfigured naming rule floods it. Bounded: each generation holds at most
 * {@code maxEntities} ids (the strings are the accumulators' own). Writers read it concurrently;
 * one collecting thread fills and turns it.
 */
final class Standing {
  private final int groups;
  private final int maxEntities;
  private volatile Generation recent;
  private volatile Generation previous;
  private long newestClosedMinute = Long.MIN_VALUE;

  Standing(int groups, int maxEntities) {
    this.groups = groups;
    this.maxEntities = maxEntities;
    this.recent = new Generation(groups);
    this.previous = new Generation(groups);
  }

  boolean has(int group, String id) {
    return recent.ids[group].contains(id) || previous.ids[group].contains(id);
  }

  /** A minute is closing; a newer one than any before starts a generation (the oldest is forgotten). */
  void closing(long minute) {
    if (minute > newestClosedMinute) {
      newestClosedMinute = minute;
      previous = recent;
      recent = new Generation(groups);
    }
  }

  /** Entity {@code id} of group {@code group} had an accumulator in a minute now closing. */
  void closed(int group, String id) {
    Generation g = recent;
    if (g.size < maxEntities && g.ids[group].add(id)) {
      g.size++;
    }
  }

  private static final class Generation {
    final Set<String>[] ids;
    int size; // written by the collecting thread only

    @SuppressWarnings("unchecked")
    Generation(int groups) {
      ids = new Set[groups];
      for (int i = 0; i < groups; i++) {
        ids[i] = ConcurrentHashMap.newKeySet();
      }
    }
  }
}
