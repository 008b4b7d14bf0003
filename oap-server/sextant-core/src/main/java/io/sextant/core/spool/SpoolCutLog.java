package io.sextant.core.spool;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.Observation;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.flush.CutLog;
import io.sextant.core.flush.OverflowStore;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flusher's cut log on the spool: each collection is written as the cut closing the epoch its
 * {@link SpoolJournal} just rotated, with a checkpoint of the roll-ups when they were due (and at
 * the first cut), and what storage has lets the spool drop what only it needed. When writing fails
 * (a full or broken disk) spooling stops, journal too, until a restart: the collector goes on
 * without durability rather than lose the collection it was writing.
 */
final class SpoolCutLog implements CutLog {
  private static final Logger LOG = LoggerFactory.getLogger(SpoolCutLog.class);
  private final Spool spool;
  private final SpoolJournal journal;
  private final SpoolConfig config;
  private final SpoolRecovery recovery;
  private final Counter stopped;
  /** False once writing the spool failed. */
  private volatile boolean cutting = true;
  private boolean checkpointed;

  SpoolCutLog(Spool spool, SpoolJournal journal, SpoolConfig config, SpoolRecovery recovery,
      MeterRegistry registry) {
    this.spool = spool;
    this.journal = journal;
    this.config = config;
    this.recovery = recovery;
    this.stopped = Counter.builder("sextant_spool_stopped")
        .description("times spooling stopped because writing the spool failed (durability off until restart)")
        .register(registry);
  }

  @Override
  public void recover(Consumer<List<Observation>> replay, Recovered queue) {
    LOG.info("Write-ahead spool in {} (fsync {}, at most {} MB)", config.directory(),
        config.fsync().name().toLowerCase(Locale.ROOT), config.maxBytes() >> 20);
    recovery.recover(spool, replay, queue);
  }

  @Override
  public boolean cutting() {
    return cutting;
  }

  @Override
  public long cut(CutParams params, List<Snapshot> snapshots, Supplier<Checkpoint> checkpoint) {
    if (!cutting) {
      return -1;
    }
    long epoch = journal.cutEpoch();
    if (epoch < 0) {
      stop(journal.failure());
      return -1;
    }
    try {
      Spool.CutWriter cut = spool.cut(epoch);
      boolean save = params.due() || !checkpointed;
      checkpointed = true;
      SpoolRecovery.writeCut(cut, params, snapshots, save ? checkpoint.get() : null);
      cut.complete();
      return epoch;
    } catch (RuntimeException e) {
      stop(e);
      return -1;
    }
  }

  private void stop(RuntimeException e) {
    cutting = false;
    journal.stop();
    stopped.increment();
    LOG.error("writing the spool failed: spooling stops until a restart, and what is accepted from now is kept in"
        + " memory only (as without core.spool.directory); {} is left for the next start", config.directory(), e);
  }

  @Override
  public void written(long epoch) {
    if (cutting) {
      spool.written(epoch);
    }
  }

  @Override
  public OverflowStore overflow() {
    return spool.overflow();
  }

  @Override
  public boolean close(boolean clean) {
    if (clean) {
      spool.closeClean();
    } else {
      spool.close();
    }
    return true;
  }

  @Override
  public void abandon() {
    spool.abandon();
  }
}
