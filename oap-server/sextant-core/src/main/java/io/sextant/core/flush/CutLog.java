package io.sextant.core.flush;

import io.sextant.api.model.Observation;
import io.sextant.api.storage.PartialRow;
import io.sextant.core.aggregate.Snapshot;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the flusher asks of durability: to log each collection (a cut) so that a successor can
 * rebuild the rows a dead run had not written, to hand over what dead runs left, to hold rows the
 * write queue has no room for, and to learn what storage has. The flusher never knows whether
 * anything is kept: {@link #NONE} keeps nothing; the spool ({@code core.spool}) keeps it on disk.
 */
public interface CutLog {
  /** A collection's parameters, which decide what its roll-ups write. */
  record CutParams(long closeBefore, boolean closeAll, boolean due) {}

  /** The roll-ups as they were before a cut: recovery starts from the oldest one kept. */
  record Checkpoint(long sequences, List<RollupEntry> hours, List<RollupEntry> days) {}

  /** Where recovered rows go: the write queue, tagged with the cut they count as. */
  @FunctionalInterface
  interface Recovered {
    void queue(List<PartialRow> rows, List<Snapshot> snapshots, long epoch);
  }

  /**
   * Takes over what earlier runs left: their rows to {@code queue}, the observations they accepted
   * and never collected to {@code replay} (the aggregator). Called once, before the first cut.
   */
  void recover(Consumer<List<Observation>> replay, Recovered queue);

  /** Whether collections are cuts now; then only collections of open minutes run, each one a cut. */
  boolean cutting();

  /**
   * Logs the collection the aggregator's journal just cut: its parameters, its snapshots and, when
   * this log wants one, a {@code checkpoint} of the roll-ups before it (asked before the flusher
   * updates them). Returns the epoch its rows belong to, or -1 (nothing kept, or logging failed
   * and stopped: the collector goes on without durability rather than lose the collection).
   */
  long cut(CutParams params, List<Snapshot> snapshots, Supplier<Checkpoint> checkpoint);

  /** Storage has every row of the cuts up to {@code epoch}: what only they needed may go. */
  void written(long epoch);

  /** Where rows past the write queue's bound go, oldest kept first; null: they are dropped. */
  OverflowStore overflow();

  /**
   * Closes the log at a stop; {@code clean}: every row is written. Returns whether what is left
   * unwritten is kept for the next start.
   */
  boolean close(boolean clean);

  /** Leaves everything as a killed process would (tests of recovery). */
  void abandon();

  /** Keeps nothing: every collection is an ordinary one, and a stop keeps no unwritten row. */
  CutLog NONE = new CutLog() {
    @Override
    public void recover(Consumer<List<Observation>> replay, Recovered queue) {}

    @Override
    public boolean cutting() {
      return false;
    }

    @Override
    public long cut(CutParams params, List<Snapshot> snapshots, Supplier<Checkpoint> checkpoint) {
      return -1;
    }

    @Override
    public void written(long epoch) {}

    @Override
    public OverflowStore overflow() {
      return null;
    }

    @Override
    public boolean close(boolean clean) {
      return false;
    }

    @Override
    public void abandon() {}
  };
}
