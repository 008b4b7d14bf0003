package io.sextant.core.flush;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.component.Component;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.spool.Spool;
import io.sextant.core.spool.SpoolConfig;
import io.sextant.core.topology.EntityRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns aggregator snapshots into storage writes: partial rows (minute, and hour and day roll-ups),
 * topology edges and metadata. Two threads: the collector snapshots the aggregator (open minutes
 * every interval, or as soon as a new service, instance or edge came; closing ones more often) and
 * queues what changed in the {@link WriteQueue}; the writer writes what is queued right after each
 * collection of open minutes. So a slow or absent store never holds
 * up collection (whose job is also to retire closed minutes from the aggregator's memory): queued
 * versions of a row are replaced by newer ones, the slower the store the fewer the writes, and the
 * queue is bounded. Writes are idempotent (row ids are deterministic), so a failed batch is simply
 * queued again.
 */
public final class Flusher implements Component, LiveMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);
  /** Metadata and edges are rewritten at most once per minute each; this bounds their caches. */
  private static final int MAX_SEEN_CACHE = 500_000;

  private final Aggregator aggregator;
  private final TimeBuckets buckets;
  private final FlusherConfig config;
  private final String writerId;
  private final AtomicLong sequences = new AtomicLong();
  private final Rollups hours = new Rollups(Step.HOUR, sequences::incrementAndGet);
  private final Rollups days = new Rollups(Step.DAY, sequences::incrementAndGet);
  /** Null without a spool. */
  private final Spool spool;
  /**
   * False without a spool, and once writing it failed (a full or broken disk): the collector goes
   * on without durability rather than lose the collection it was writing.
   */
  private volatile boolean spooling;
  private final SpoolRecovery recovery;
  private final SpoolConfig spoolConfig;
  private final Counter spoolStopped;
  private boolean checkpointed;
  /** The write job: what collection queued, until the writer sends it to storage. */
  private final WriteQueue queue;
  /** Held while collecting: from taking accumulators out of the aggregator to queuing their rows. */
  private final ReentrantLock collectLock = new ReentrantLock();
  /**
   * {@link Aggregator#closings()} as of the last collection whose rows are queued: a fresh read
   * waits only for a collection that closed a minute under it (open minutes stay in the aggregator).
   */
  private volatile long closingsQueued;
  /** A write is queued on the writer thread and has not started yet. */
  private final AtomicBoolean writeQueued = new AtomicBoolean();
  private final EntityRegistry entities = new EntityRegistry(MAX_SEEN_CACHE);
  private final Counter newcomerCollections;
  private final Timer flushTimer;
  private final ScheduledExecutorService collector =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-flush-collector"));
  private final ScheduledExecutorService writer =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-flush-writer"));
  private volatile boolean closed;
  private long lastRollupWrite;
  private long lastOpenCollect;
  private long newcomersCollected;

  public Flusher(Aggregator aggregator, StorageComponent storage, TimeBuckets buckets,
      FlusherConfig config, String collectorId, MeterRegistry registry) {
    this(aggregator, storage, buckets, config, null, collectorId, registry);
  }

  /**
   * With {@code spool} (null: none) everything accepted is kept on disk until storage has it, and
   * {@link #start()} first takes over what earlier runs left there.
   */
  public Flusher(Aggregator aggregator, StorageComponent storage, TimeBuckets buckets,
      FlusherConfig config, SpoolConfig spool, String collectorId, MeterRegistry registry) {
    this.aggregator = aggregator;
    this.buckets = buckets;
    this.config = config;
    // A restarted collector must never overwrite the partials of its previous run.
    this.writerId = collectorId + "@" + Long.toString(System.currentTimeMillis(), 36);
    this.newcomerCollections = Counter.builder("sextant_flush_newcomer_collections")
        .description("open minutes collected before their interval because new services, instances or edges came")
        .register(registry);
    this.flushTimer = Timer.builder("sextant_flush_duration").description("one collection of the aggregator")
        .publishPercentiles(0.5, 0.99).register(registry);
    this.spoolConfig = spool;
    this.spoolStopped = spool == null ? null : Counter.builder("sextant_spool_stopped")
        .description("times spooling stopped because writing the spool failed (durability off until restart)")
        .register(registry);
    this.spool = spool == null ? null : new Spool(spool, writerId, registry);
    this.queue = new WriteQueue(storage, config.maxPendingBytes(), MAX_SEEN_CACHE,
        this.spool == null ? null : this.spool.overflow(), registry);
    this.recovery = spool == null ? null : new SpoolRecovery(aggregator.catalog(), registry);
    if (this.spool != null) {
      aggregator.spoolTo(this.spool);
      spooling = true;
    }
  }

  @Override
  public void start() {
    if (spool != null) {
      LOG.info("Write-ahead spool in {} (fsync {}, at most {} MB)", spoolConfig.directory(),
          spoolConfig.fsync().name().toLowerCase(Locale.ROOT), spoolConfig.maxBytes() >> 20);
      recovery.recover(spool, aggregator, (rows, snapshots) -> queue.queue(rows, snapshots, entities, spool.epoch()));
    }
    // Closed minutes (and late records) are collected often, open ones every interval: what sits
    // in the aggregator stays small even when a client replays minutes of backlog at once.
    long closedEvery = Math.min(config.intervalMillis(), config.closedIntervalMillis());
    lastOpenCollect = buckets.nowMillis(); // the first interval counts from here, newcomers come sooner
    // Both run until their executor is shut down, and safely() logs what a run throws: the futures
    // would tell nothing more, so they are not kept.
    Future<?> unusedCollect = collector.scheduleWithFixedDelay(() -> safely("collecting", this::collectAndWrite),
        closedEvery, closedEvery, TimeUnit.MILLISECONDS);
  }

  /**
   * One cadence: when open minutes were collected, what was queued is written right after on the
   * writer thread, so other collectors see this one's data an interval after it arrived, not up
   * to two. Closed minutes collected in between wait for that write (their rows are final). At
   * most one write waits on the writer thread, so a slow store never piles them up.
   */
  private void collectAndWrite() {
    if (collect(false, false) && !closed && writeQueued.compareAndSet(false, true)) {
      try {
        writer.execute(() -> {
          writeQueued.set(false);
          safely("writing", this::write);
        });
      } catch (RejectedExecutionException e) {
        writeQueued.set(false); // closing: close() writes everything itself
      }
    }
  }

  private static void safely(String what, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("{} failed", what, e);
    }
  }

  /**
   * Collects and writes everything accumulated, on the caller's thread; {@code closeAll} also
   * closes open minutes and roll-ups.
   */
  public void flush(boolean closeAll) {
    collect(closeAll, true);
    write();
  }

  /**
   * Snapshots closing minutes, and open ones too when {@code forceOpen} or their interval is due;
   * true if open ones were.
   */
  boolean collect(boolean closeAll, boolean forceOpen) {
    collectLock.lock();
    try {
      return collectLocked(closeAll, forceOpen);
    } finally {
      collectLock.unlock();
    }
  }

  private boolean collectLocked(boolean closeAll, boolean forceOpen) {
    long started = System.nanoTime();
    long currentMinute = buckets.currentMinuteBucket();
    long closeBefore = TimeBuckets.plus(currentMinute, Step.MINUTE, -config.graceMinutes());
    long now = buckets.nowMillis();
    // New services, instances and edges bring the open collection forward, so they show within a
    // closed-collection interval; in a steady mesh there are none and the interval holds.
    long newcomers = aggregator.newcomers();
    boolean early = newcomers != newcomersCollected;
    boolean includeOpen = forceOpen || closeAll || early || now - lastOpenCollect >= config.intervalMillis();
    if (includeOpen) {
      if (early && !forceOpen && !closeAll && now - lastOpenCollect < config.intervalMillis()) {
        newcomerCollections.increment();
      }
      lastOpenCollect = now;
      newcomersCollected = newcomers;
    }
    if (spooling && !includeOpen) {
      return false; // with a spool every collection is a cut: closing ones wait for the next
    }
    List<Snapshot> snapshots = aggregator.collect(closeBefore, closeAll, includeOpen);
    long closings = aggregator.closings();
    // Roll-ups are rewritten every rollupIntervalMillis; a bucket is final once every minute
    // that can still close into it has.
    boolean due = closeAll || now - lastRollupWrite >= config.rollupIntervalMillis();
    if (due) {
      lastRollupWrite = now;
    }
    long epoch = -1;
    Spool.CutWriter cut = null;
    if (spooling && aggregator.cutEpoch() < 0) {
      stopSpooling(aggregator.spoolFailure());
    }
    if (spooling) {
      epoch = aggregator.cutEpoch();
      try {
        cut = spool.cut(epoch);
        // The roll-ups as they were before this cut, so recovery replays the cut on top of them.
        boolean checkpoint = due || !checkpointed;
        checkpointed = true;
        SpoolRecovery.writeCut(cut, new SpoolRecovery.CutParams(closeBefore, closeAll, due), snapshots,
            checkpoint ? new SpoolRecovery.Checkpoint(sequences.get(), hours, days) : null);
      } catch (RuntimeException e) {
        stopSpooling(e);
        cut = null;
      }
    }
    List<PartialRow> rows = rows(snapshots, new SpoolRecovery.CutParams(closeBefore, closeAll, due), hours, days,
        writerId);
    if (cut != null) {
      try {
        cut.complete();
      } catch (RuntimeException e) {
        stopSpooling(e);
      }
    }
    queue.queue(rows, snapshots, entities, epoch);
    closingsQueued = closings;
    flushTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    return includeOpen;
  }

  @Override
  public List<MetricGroup> groups() {
    return aggregator.catalog().groups();
  }

  @Override
  public void unstored(MetricGroup group, int index, Collection<String> entityIds, Step step, long start, long end,
      Consumer<MetricPartial> out) {
    String metric = group.definitions()[index].name();
    if (step == Step.MINUTE) {
      aggregator.peek(group, index, entityIds, start, end, (entityId, minute, sequence, state) -> {
        if (!state.isEmpty()) { // as the flusher writes it: no cell for a metric no record reached
          out.accept(new MetricPartial(metric, entityId, Step.MINUTE, minute, writerId, sequence, state.counters(),
              state.sketch()));
        }
      });
      // A collection that closed a minute while the aggregator was read may have taken
      // accumulators out before the read saw them and not yet queued their rows: wait for it.
      if (closingsQueued < aggregator.closings()) {
        collectLock.lock();
        collectLock.unlock();
      }
    }
    queue.unwritten(group.name(), metric, entityIds, step, start, end, out);
  }

  private void stopSpooling(RuntimeException e) {
    spooling = false;
    aggregator.spoolTo(null);
    spoolStopped.increment();
    LOG.error("writing the spool failed: spooling stops until a restart, and what is accepted from now is kept in"
        + " memory only (as without core.spool.directory); {} is left for the next start", spoolConfig.directory(), e);
  }

  /**
   * What one collection makes of its snapshots: their minute rows, and the roll-up rows of
   * {@code hours} and {@code days} it makes due. Recovery calls it again with a dead run's cuts.
   */
  static List<PartialRow> rows(List<Snapshot> snapshots, SpoolRecovery.CutParams cut, Rollups hours, Rollups days,
      String writerId) {
    List<PartialRow> rows = new ArrayList<>();
    for (Snapshot s : snapshots) {
      rows.add(row(s.group(), s.entity().id(), Step.MINUTE, s.minuteBucket(), writerId, s.sequence(), s.states(),
          s.closed()));
      for (Rollups r : List.of(hours, days)) {
        Rollups.Rollup direct = r.update(s);
        if (direct != null) {
          rows.add(row(direct.group(), direct.entity().id(), r.step(), direct.bucket(), writerId, direct.sequence(),
              direct.states(), true));
        }
      }
    }
    for (Rollups r : List.of(hours, days)) {
      long finalBefore = TimeBuckets.rollup(cut.closeBefore(), r.step());
      for (Rollups.Rollup e : r.drain(finalBefore, cut.closeAll(), cut.due())) {
        rows.add(row(e.group(), e.entity().id(), r.step(), e.bucket(), writerId, e.sequence(), e.states(),
            e.closed()));
      }
    }
    return rows;
  }

  /** An accumulator's states as the row storage writes; metrics no record reached are left out. */
  public static PartialRow row(MetricGroup group, String entityId, Step step, long bucket, String writerId,
      long sequence, EncodedState[] states) {
    return row(group, entityId, step, bucket, writerId, sequence, states, false);
  }

  /** As above; {@code closed}: the accumulator is sealed, so this is the row's last version. */
  static PartialRow row(MetricGroup group, String entityId, Step step, long bucket, String writerId,
      long sequence, EncodedState[] states, boolean closed) {
    MetricDefinition[] defs = group.definitions();
    List<PartialRow.Cell> cells = new ArrayList<>(defs.length);
    for (int i = 0; i < defs.length; i++) {
      EncodedState st = states[i];
      if (!st.isEmpty()) { // else a side filter kept every record of this accumulator out of this metric
        cells.add(new PartialRow.Cell(defs[i].name(), st.counters(), st.sketch()));
      }
    }
    return new PartialRow(group.name(), entityId, step, bucket, writerId, sequence, cells, closed, List.of());
  }

  /** Writes everything queued; what fails is queued again, behind nothing newer. */
  void write() {
    queue.write();
    if (spooling) {
      spool.written(queue.writtenEpoch());
    }
  }

  public String writerId() {
    return writerId;
  }

  /**
   * For tests that kill a run inside their JVM: it does nothing more, and its spool is left as a
   * killed process leaves it, its locks released as the OS releases a dead process's.
   */
  void kill() {
    closed = true;
    collector.shutdownNow();
    writer.shutdownNow();
    if (spool != null) {
      spool.abandon();
    }
  }

  /** Stops the schedule and writes everything accepted so far, closing every open bucket. */
  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  /**
   * Stops the schedule and writes everything accepted so far, closing every open bucket, retrying
   * failed writes until {@code budget} is spent. Returns the partial rows that could not be
   * written (0 when everything was); a second call returns 0 at once.
   */
  public int close(Duration budget) {
    if (closed) {
      return 0;
    }
    closed = true;
    long deadline = System.nanoTime() + budget.toNanos();
    collector.shutdown();
    writer.shutdown();
    try {
      collector.awaitTermination(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      writer.awaitTermination(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      flush(true);
      while (queue.count() > 0 && remainingMillis(deadline) > 0) {
        Thread.sleep(Math.min(1000, remainingMillis(deadline)));
        write();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int left = queue.count();
    if (spool != null && left == 0) {
      spool.closeClean();
    } else if (spool != null) {
      spool.close();
      LOG.warn("{} partial rows could not be written before shutdown; kept in the spool for the next start", left);
    } else if (left > 0) {
      LOG.error("{} partial rows could not be written before shutdown and are lost", left);
    }
    return left;
  }

  private static long remainingMillis(long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  /**
   * How full the write queue is, 0 to 1: at 1 the oldest waiting rows are dropped (with a spool
   * whose overflow holds rows, how full the spool is).
   */
  public double pendingFillRatio() {
    return queue.fillRatio();
  }

  /** Partial rows collected but not yet written. */
  public int pendingPartials() {
    return queue.count();
  }
}
