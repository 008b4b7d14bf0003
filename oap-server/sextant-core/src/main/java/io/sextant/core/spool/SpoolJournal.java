package io.sextant.core.spool;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.model.Observation;
import io.sextant.core.aggregate.Journal;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aggregator's journal on the spool: each thread's batch goes to the thread's file of the
 * current epoch before the batch returns, and a cut rotates the epoch. When rotating fails (a full
 * or broken disk) the journal turns off and its {@link SpoolCutLog} says so: the collector goes on
 * without durability rather than lose what it collects.
 */
final class SpoolJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(SpoolJournal.class);
  /** A batch's buffer is written when it grows past this, and not kept past it. */
  private static final int MAX_BATCH_BYTES = 1 << 20;
  private static final AtomicInteger WRITERS = new AtomicInteger();
  /** What the aggregator gets once the journal is off: always open, so it takes no lock. */
  private static final Batch OFF = NONE.batch();
  private final Spool spool;
  private final ThreadLocal<ThreadBatch> batches = ThreadLocal.withInitial(ThreadBatch::new);
  private final Counter failures;
  private final Timer cutPause;
  private final AtomicBoolean failureLogged = new AtomicBoolean();
  private volatile boolean on = true;
  /** The epoch the last cut closed, and why rotating failed; for the collecting thread. */
  private long cutEpoch = -1;
  private RuntimeException failure;

  SpoolJournal(Spool spool, MeterRegistry registry) {
    this.spool = spool;
    this.cutPause = Timer.builder("sextant_spool_cut_pause")
        .description("how long a spool cut holds new batches: waiting for running ones, then copying accumulators")
        .publishPercentiles(0.5, 0.99).register(registry);
    this.failures = Counter.builder("sextant_spool_write_failures")
        .description("batches of accepted records the spool could not write (kept in memory only)")
        .register(registry);
  }

  @Override
  public boolean on() {
    return on;
  }

  @Override
  public Batch batch() {
    return on ? batches.get() : OFF;
  }

  @Override
  public void cut() {
    try {
      cutEpoch = spool.rotate();
    } catch (RuntimeException e) {
      on = false;
      cutEpoch = -1;
      failure = e;
    }
  }

  @Override
  public void cutTook(long nanos) {
    cutPause.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The epoch the last cut closed; -1 when rotating failed, which turned the journal off. */
  long cutEpoch() {
    return cutEpoch;
  }

  /** Why the last cut failed. */
  RuntimeException failure() {
    return failure;
  }

  /** Turns the journal off: the cut log failed. */
  void stop() {
    on = false;
  }

  /** A thread's batch: the observations it journals, in the codec's frame. */
  private final class ThreadBatch implements Batch {
    /** Tags this thread's frames: the reader keeps one string table per writer. */
    final int writer = WRITERS.incrementAndGet();
    final Out out = new Out(16 << 10);
    final StringTable names = new StringTable();
    /** This thread's files in the spool. */
    final Spool.Writer files = spool.writer(writer);
    long epoch = -1;
    boolean open;
    boolean opened;

    @Override
    public boolean open() {
      return open;
    }

    @Override
    public void begin() {
      open = true;
      opened = false;
      long now = spool.epoch(); // stable while the cut lock is held
      if (now != epoch) {
        epoch = now;
        names.clear(); // a new file: its numbers start anew
      }
    }

    @Override
    public void opened() {
      opened = true;
    }

    /**
     * Instance properties are kept only when the observation opened an accumulator: only an
     * opening reads them (to describe the entity), and encoding them for every record would
     * triple the cost of journaling.
     */
    @Override
    public void append(Observation accepted) {
      if (out.size() == 0) {
        out.varint(writer);
      }
      ObservationCodec.write(out, accepted, opened, names);
      opened = false;
      if (out.size() > MAX_BATCH_BYTES) {
        write();
      }
    }

    @Override
    public void end() {
      open = false;
      write();
      if (out.capacity() > MAX_BATCH_BYTES) {
        batches.remove(); // one huge message does not keep its buffer on every thread
      }
    }

    private void write() {
      try {
        files.append(out);
      } catch (RuntimeException e) {
        // Accepted and aggregated, only not durable: failing the client would make it send them twice.
        failures.increment();
        if (failureLogged.compareAndSet(false, true)) {
          LOG.error("cannot write accepted records to the spool (logged once); they are kept in memory only", e);
        }
      } finally {
        out.reset();
      }
    }
  }
}
