package io.sextant.core.flush;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.MetricState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Hour or day partials, built from closed minutes. Owned by the flusher thread. A rolled-up bucket
 * is rewritten while minutes keep closing into it and forgotten once it is over; a minute closing
 * later into a forgotten bucket starts a new partial (new sequence), which queries merge.
 */
final class Rollups {
  private final Step step;
  private final LongSupplier sequences;
  private final Map<String, Entry> open = new HashMap<>();

  Rollups(Step step, LongSupplier sequences) {
    this.step = step;
    this.sequences = sequences;
  }

  void merge(Snapshot closedMinute) {
    long bucket = TimeBuckets.rollup(closedMinute.minuteBucket(), step);
    MetricGroup group = closedMinute.group();
    String key = group.index() + "|" + closedMinute.entity().id() + "|" + bucket;
    Entry e = open.get(key);
    if (e == null) {
      e = new Entry(group, closedMinute.entity(), bucket, sequences.getAsLong(), group.newStates());
      open.put(key, e);
    }
    group.merge(e.states, closedMinute.states());
    e.dirty = true;
  }

  /** Dirty entries to write; entries whose bucket is before {@code forgetBefore} are dropped after. */
  List<Entry> drain(long forgetBefore, boolean all) {
    List<Entry> out = new ArrayList<>();
    for (Iterator<Entry> it = open.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.dirty) {
        e.dirty = false;
        out.add(e);
      }
      if (all || e.bucket < forgetBefore) {
        it.remove();
      }
    }
    return out;
  }

  Step step() {
    return step;
  }

  int size() {
    return open.size();
  }

  static final class Entry {
    final MetricGroup group;
    final EntityRef entity;
    final long bucket;
    final long sequence;
    final MetricState[] states;
    boolean dirty;

    Entry(MetricGroup group, EntityRef entity, long bucket, long sequence, MetricState[] states) {
      this.group = group;
      this.entity = entity;
      this.bucket = bucket;
      this.sequence = sequence;
      this.states = states;
    }
  }
}
