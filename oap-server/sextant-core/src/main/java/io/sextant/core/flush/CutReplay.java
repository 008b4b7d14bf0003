package io.sextant.core.flush;

import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.core.aggregate.Snapshot;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A dead run's collections replayed through the flusher's own row making ({@link Flusher#rows}),
 * so each row comes out with the id and content the dead run gave or would have given it:
 * rewriting it is idempotent. Recovery restores a checkpoint, replays every later cut, then
 * {@link #finish}es.
 */
public final class CutReplay {
  private final String writerId;
  private final AtomicLong sequences = new AtomicLong();
  private final Rollups hours = new Rollups(Step.HOUR, sequences::incrementAndGet);
  private final Rollups days = new Rollups(Step.DAY, sequences::incrementAndGet);
  private CutLog.CutParams last;

  public CutReplay(String writerId) {
    this.writerId = writerId;
  }

  /** Restores the sequence counter of a checkpoint. */
  public void sequences(long value) {
    sequences.set(value);
  }

  /** Restores one roll-up entry of a checkpoint. */
  public void restore(Step step, RollupEntry entry) {
    (step == Step.HOUR ? hours : days).restore(entry);
  }

  /** The rows the dead run made, or would have made, of one cut. */
  public List<PartialRow> rows(CutLog.CutParams params, List<Snapshot> snapshots) {
    last = params;
    return Flusher.rows(snapshots, params, hours, days, writerId);
  }

  /** The dead run adds nothing more: every roll-up it holds is final, written closed. */
  public List<PartialRow> finish() {
    if (last == null) {
      return List.of();
    }
    return Flusher.rows(List.of(), new CutLog.CutParams(last.closeBefore(), true, true), hours, days, writerId);
  }
}
