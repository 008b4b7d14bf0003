package io.sextant.core.flush;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.MetricState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Hour or day partials, built from minute snapshots. Owned by the flusher thread. An entry holds
 * the merged state of its closed minutes plus the latest copy of each still-open minute, so an
 * hour or day value is current as of the last write, not only once its minutes close. Once every
 * minute of the bucket is closed the entry is final: written a last time (at the next due time)
 * and forgotten. A minute closing later into a forgotten bucket starts a new partial (new
 * sequence), which queries merge. The last write of an entry is marked closed: nothing rewrites
 * that partial again, so collectors may compact it like a closed minute.
 *
 * <p>Memory does not grow with the entities seen in a day: at most {@code maxHeld} entries. Past
 * it, every entry without an open minute is written and forgotten at once, final or not, and a
 * minute of an entity not held is written as a partial of its own when it closes (later minutes
 * start new partials, which cost documents, not a count).
 */
final class Rollups {
  /** Entries held before idle ones are written and forgotten without waiting (memory). */
  static final int MAX_HELD = 20_000;
  private final Step step;
  private final int maxHeld;
  private final LongSupplier sequences;
  private final Map<Key, Entry> entries = new HashMap<>();

  Rollups(Step step, LongSupplier sequences) {
    this(step, sequences, MAX_HELD);
  }

  Rollups(Step step, LongSupplier sequences, int maxHeld) {
    this.step = step;
    this.maxHeld = maxHeld;
    this.sequences = sequences;
  }

  /**
   * Takes a minute into its hour or day. Past {@code maxHeld} entries a minute of an entity not held
   * starts no entry: a closed one is returned, to be written at once as a partial of its own (a
   * burst of new entities costs documents, not memory), and an open one waits until it closes.
   */
  Rollup update(Snapshot minute) {
    long bucket = TimeBuckets.rollup(minute.minuteBucket(), step);
    MetricGroup group = minute.group();
    Key key = new Key(group.index(), minute.entity().id(), bucket);
    Entry e = entries.get(key);
    if (e == null && entries.size() >= maxHeld) {
      return minute.closed()
          ? new Rollup(group, minute.entity(), bucket, sequences.getAsLong(), minute.states(), true)
          : null;
    }
    if (e == null) {
      e = new Entry(group, minute.entity(), bucket, sequences.getAsLong());
      entries.put(key, e);
    }
    if (minute.closed()) {
      group.merge(e.closed(), EncodedState.decode(minute.states()));
      e.open.remove(minute.sequence());
    } else {
      e.open.put(minute.sequence(), minute.states());
    }
    e.dirty = true;
    return null;
  }

  /**
   * Entries to write: every changed one when {@code due} (or {@code closeAll}), which also forgets
   * the final ones (bucket before {@code finalBefore}, every minute closed). A final entry waits
   * for the next due time rather than being written at once: a client replaying past hours closes
   * their minutes every collection, and each write of a forgotten entry is a new partial. Past
   * {@code maxHeld} entries, every entry without open minutes is written and forgotten at once.
   * A forgotten entry is written closed even when unchanged since its last write (an entity that
   * went quiet before its hour ended), so that its partial can be compacted.
   */
  List<Rollup> drain(long finalBefore, boolean closeAll, boolean due) {
    boolean over = entries.size() > maxHeld;
    boolean flushFinal = due || closeAll || over;
    List<Rollup> out = new ArrayList<>();
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      boolean idle = e.open.isEmpty();
      boolean last = (closeAll || e.bucket < finalBefore) && idle;
      boolean forget = (last && flushFinal) || (over && idle);
      if (forget || e.dirty && (due || closeAll)) {
        e.dirty = false;
        out.add(new Rollup(e.group, e.entity, e.bucket, e.sequence, EncodedState.of(e.current()), forget));
      }
      if (forget) {
        it.remove();
      }
    }
    return out;
  }

  /** Every entry as a value, for a checkpoint; read before the flusher updates them again. */
  List<RollupEntry> entries() {
    List<RollupEntry> out = new ArrayList<>(entries.size());
    for (Entry e : entries.values()) {
      out.add(new RollupEntry(e.group, e.entity, e.bucket, e.sequence,
          e.closed == null ? null : EncodedState.of(e.closed), Map.copyOf(e.open), e.dirty));
    }
    return out;
  }

  /** Takes back an entry of a checkpoint. */
  void restore(RollupEntry saved) {
    Entry e = new Entry(saved.group(), saved.entity(), saved.bucket(), saved.sequence());
    if (saved.closed() != null) {
      e.closed = EncodedState.decode(saved.closed());
    }
    e.open.putAll(saved.open());
    e.dirty = saved.dirty();
    entries.put(new Key(saved.group().index(), e.entity.id(), e.bucket), e);
  }

  int held() {
    return entries.size();
  }

  Step step() {
    return step;
  }

  private record Key(int group, String entityId, long bucket) {}

  /** {@code closed}: the partial's last version (its entry is forgotten). */
  record Rollup(MetricGroup group, EntityRef entity, long bucket, long sequence, EncodedState[] states,
      boolean closed) {}

  private static final class Entry {
    final MetricGroup group;
    final EntityRef entity;
    final long bucket;
    final long sequence;
    /** The merged closed minutes; made on the first one (an entry of open minutes needs none). */
    private MetricState[] closed;
    final Map<Long, EncodedState[]> open = new HashMap<>();
    boolean dirty;

    Entry(MetricGroup group, EntityRef entity, long bucket, long sequence) {
      this.group = group;
      this.entity = entity;
      this.bucket = bucket;
      this.sequence = sequence;
    }

    MetricState[] closed() {
      if (closed == null) {
        closed = group.newStates();
      }
      return closed;
    }

    MetricState[] current() {
      if (open.isEmpty()) {
        return closed();
      }
      MetricState[] merged = group.newStates();
      if (closed != null) {
        group.merge(merged, closed);
      }
      open.values().forEach(states -> group.merge(merged, EncodedState.decode(states)));
      return merged;
    }
  }
}
