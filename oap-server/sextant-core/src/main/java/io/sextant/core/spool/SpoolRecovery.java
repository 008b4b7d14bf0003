package io.sextant.core.spool;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.Observation;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.flush.CutLog;
import io.sextant.core.flush.CutLog.CutParams;
import io.sextant.core.flush.CutReplay;
import io.sextant.core.metric.MetricCatalog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a cut holds in the spool, and how a new run takes over what dead runs left. A cut file is
 * a header (the collection's parameters), from time to time a checkpoint of the roll-ups as they
 * were before the cut, and the cut's snapshots. Recovery restores the oldest checkpoint a run kept
 * (storage has everything before it), replays every later cut through the same code the flusher
 * runs ({@link CutReplay}), so each row comes out with the id and content the dead run gave or
 * would have given it: rewriting it is idempotent, nothing is counted twice. The dead run's
 * roll-ups are then final (it adds nothing more). Observations of the epoch no complete cut
 * closed were never collected: they are replayed into this run's aggregator.
 */
final class SpoolRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(SpoolRecovery.class);
  private static final int HEADER = 'H';
  private static final int SEQUENCES = 'Q';
  private static final int HOURS = 'h';
  private static final int DAYS = 'd';
  private static final int SNAPSHOTS = 'S';
  private static final int FRAME_BYTES = 4 << 20;
  private final SnapshotCodec codec;
  private final Counter recoveredRows;
  private final Counter replayedObservations;
  private final Counter undecodable;

  SpoolRecovery(MetricCatalog catalog, MeterRegistry registry) {
    this.codec = new SnapshotCodec(catalog);
    this.recoveredRows = Counter.builder("sextant_spool_recovered_rows")
        .description("partial rows of dead runs rebuilt from the spool and written again").register(registry);
    this.replayedObservations = Counter.builder("sextant_spool_replayed_records")
        .description("records dead runs accepted and never collected, replayed from the spool").register(registry);
    this.undecodable = Counter.builder("sextant_spool_undecodable_frames")
        .description("intact spool frames that did not decode (another build's metrics); skipped").register(registry);
  }

  static void writeCut(Spool.CutWriter cut, CutParams params, List<Snapshot> snapshots,
      CutLog.Checkpoint checkpoint) {
    Out header = new Out(32);
    header.u8(HEADER);
    header.i64(params.closeBefore());
    header.bool(params.closeAll());
    header.bool(params.due());
    header.bool(checkpoint != null);
    cut.frame(header);
    if (checkpoint != null) {
      Out sequences = new Out(16);
      sequences.u8(SEQUENCES);
      sequences.i64(checkpoint.sequences());
      cut.frame(sequences);
      RollupCheckpoint.save(HOURS, checkpoint.hours(), cut::frame);
      RollupCheckpoint.save(DAYS, checkpoint.days(), cut::frame);
      cut.checkpoint();
    }
    Out out = null;
    for (Snapshot s : snapshots) {
      if (out == null) {
        out = new Out(64 << 10);
        out.u8(SNAPSHOTS);
      }
      SnapshotCodec.write(out, s);
      if (out.size() > FRAME_BYTES) {
        cut.frame(out);
        out = null;
      }
    }
    if (out != null) {
      cut.frame(out);
    }
  }

  /**
   * Takes over every dead run in the spool: their rows and the snapshots describing them go to
   * {@code queue}, their uncollected observations to {@code replay} (the aggregator, which spools
   * them again as this run's).
   */
  void recover(Spool spool, Consumer<List<Observation>> replay, CutLog.Recovered queue) {
    for (Spool.DeadRun run : spool.deadRuns()) {
      long started = System.nanoTime();
      List<Long> complete = new ArrayList<>();
      Long start = null;
      for (long epoch : run.cutEpochs()) {
        boolean[] checkpoint = {false};
        boolean whole = run.readCut(epoch, in -> {
          if (in.u8() == HEADER) {
            in.i64();
            in.bool();
            in.bool();
            checkpoint[0] = in.bool();
          }
        });
        if (!whole) {
          break; // the cut being written when the run died; its epoch's observations are still there
        }
        complete.add(epoch);
        if (checkpoint[0] && start == null) {
          start = epoch;
        }
      }
      if (start == null && !complete.isEmpty()) {
        LOG.warn("spool of {}: no roll-up checkpoint left (the spool was full); its hour and day partials start "
            + "from its oldest cut", run.writerId());
        start = complete.get(0);
      }
      Map<String, PartialRow> rows = new LinkedHashMap<>();
      Map<String, Snapshot> snapshots = new LinkedHashMap<>();
      if (start != null) {
        replayCuts(run, complete.subList(complete.indexOf(start), complete.size()), rows, snapshots);
      }
      queue.queue(new ArrayList<>(rows.values()), new ArrayList<>(snapshots.values()), spool.epoch());
      recoveredRows.increment(rows.size());
      long lastCut = complete.isEmpty() ? -1 : complete.get(complete.size() - 1);
      long[] replayed = {0};
      run.observationsAfter(lastCut, () -> {
        Map<Long, StringTable.Reader> writers = new HashMap<>();
        return in -> {
          List<Observation> batch = new ArrayList<>();
          try {
            StringTable.Reader names = writers.computeIfAbsent(in.varint(), w -> new StringTable.Reader());
            while (in.hasMore()) {
              batch.add(ObservationCodec.read(in, names));
            }
          } catch (RuntimeException e) {
            undecodable.increment();
            LOG.warn("spool of {}: an observation frame did not decode, skipped from there: {}", run.writerId(),
                e.toString());
          }
          replay.accept(batch);
          replayed[0] += batch.size();
        };
      });
      replayedObservations.increment(replayed[0]);
      run.recovered(spool.epoch());
      LOG.info("Took over the spool of {}: {} partial rows rebuilt, {} accepted records replayed, in {} ms",
          run.writerId(), rows.size(), replayed[0], TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
  }

  private void replayCuts(Spool.DeadRun run, List<Long> epochs, Map<String, PartialRow> rows,
      Map<String, Snapshot> snapshots) {
    CutReplay replay = new CutReplay(run.writerId());
    for (long epoch : epochs) {
      boolean restore = epoch == epochs.get(0);
      CutParams[] params = {null};
      List<Snapshot> taken = new ArrayList<>();
      run.readCut(epoch, in -> {
        try {
          int tag = in.u8();
          switch (tag) {
            case HEADER -> params[0] = new CutParams(in.i64(), in.bool(), in.bool());
            case SEQUENCES -> {
              long value = in.i64();
              if (restore) {
                replay.sequences(value);
              }
            }
            case HOURS -> restoreIf(restore, replay, Step.HOUR, in);
            case DAYS -> restoreIf(restore, replay, Step.DAY, in);
            case SNAPSHOTS -> {
              while (in.hasMore()) {
                taken.add(codec.snapshot(in));
              }
            }
            default -> throw new IllegalArgumentException("unknown frame " + tag);
          }
        } catch (RuntimeException e) {
          undecodable.increment();
          LOG.warn("spool of {}: a frame of cut {} did not decode, skipped: {}", run.writerId(), epoch, e.toString());
        }
      });
      if (params[0] == null) {
        continue;
      }
      for (PartialRow r : replay.rows(params[0], taken)) {
        rows.put(r.id(), r);
      }
      for (Snapshot s : taken) {
        snapshots.put(s.group().name() + "|" + s.entity().id() + "|" + s.minuteBucket() + "|" + s.sequence(), s);
      }
    }
    for (PartialRow r : replay.finish()) {
      rows.put(r.id(), r);
    }
  }

  private void restoreIf(boolean restore, CutReplay replay, Step step, In in) {
    if (restore) {
      RollupCheckpoint.restore(in, codec, entry -> replay.restore(step, entry));
    }
  }
}
