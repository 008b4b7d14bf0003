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
import io.sextant.core.topology.EntityRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * queued again. Durability is its {@link CutLog}'s: each collection is logged there, and what
 * storage has is reported back; without one ({@link CutLog#NONE}) nothing outlives the process.
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
  private final CutLog cutLog;
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

  /** A flusher that keeps nothing past the process. */
  public Flusher(Aggregator aggregator, StorageComponent storage, TimeBuckets buckets,
      FlusherConfig config, String collectorId, MeterRegistry registry) {
    this(aggregator, storage, buckets, config, CutLog.NONE, writerId(collectorId), registry);
  }

  /**
   * A flusher whose collections {@code cutLog} keeps; {@link #start()} first takes over what earlier
   * runs left there. {@code writerId} as {@link #writerId(String)} made it for this run.
   */
  public Flusher(Aggregator aggregator, StorageComponent storage, TimeBuckets buckets,
      FlusherConfig config, CutLog cutLog, String writerId, MeterRegistry registry) {
    this.aggregator = aggregator;
    this.buckets = buckets;
    this.config = config;
    this.writerId = writerId;
    this.cutLog = cutLog;
    this.newcomerCollections = Counter.builder("sextant_flush_newcomer_collections")
        .description("open minutes collected before their interval because new services, instances or edges came")
        .register(registry);
    this.flushTimer = Timer.builder("sextant_flush_duration").description("one collection of the aggregator")
        .publishPercentiles(0.5, 0.99).register(registry);
    this.queue = new WriteQueue(storage, config.maxPendingBytes(), MAX_SEEN_CACHE, cutLog.overflow(), registry);
  }

  /** A new run's writer id: a restarted collector must never overwrite the partials of its previous run. */
  public static String writerId(String collectorId) {
    return collectorId + "@" + Long.toString(System.currentTimeMillis(), 36);
  }

  @Override
  public void start() {
    cutLog.recover(aggregator::replay, (rows, snapshots, epoch) -> queue.queue(rows, snapshots, entities, epoch));
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
    if (cutLog.cutting() && !includeOpen) {
      return false; // every collection is a cut: closing ones wait for the next
    }
    List<Snapshot> snapshots = aggregator.collect(closeBefore, closeAll, includeOpen);
    long closings = aggregator.closings();
    // Roll-ups are rewritten every rollupIntervalMillis; a bucket is final once every minute
    // that can still close into it has.
    boolean due = closeAll || now - lastRollupWrite >= config.rollupIntervalMillis();
    if (due) {
      lastRollupWrite = now;
    }
    CutLog.CutParams params = new CutLog.CutParams(closeBefore, closeAll, due);
    // The roll-ups as they were before this cut, so recovery replays the cut on top of them.
    long epoch = cutLog.cut(params, snapshots,
        () -> new CutLog.Checkpoint(sequences.get(), hours.entries(), days.entries()));
    List<PartialRow> rows = rows(snapshots, params, hours, days, writerId);
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

  /**
   * What one collection makes of its snapshots: their minute rows, and the roll-up rows of
   * {@code hours} and {@code days} it makes due. Recovery calls it again with a dead run's cuts.
   */
  static List<PartialRow> rows(List<Snapshot> snapshots, CutLog.CutParams cut, Rollups hours, Rollups days,
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
    cutLog.written(queue.writtenEpoch());
  }

  public String writerId() {
    return writerId;
  }

  /**
   * For tests that kill a run inside their JVM: it does nothing more, and its cut log is left as a
   * killed process leaves it.
   */
  void kill() {
    closed = true;
    collector.shutdownNow();
    writer.shutdownNow();
    cutLog.abandon();
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
    boolean kept = cutLog.close(left == 0);
    if (left > 0 && kept) {
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
