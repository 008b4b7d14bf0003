package io.sextant.core.flush;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.component.CheckResult;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.topology.EntityRegistry;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flusher's write job: what collection queued waits here ({@link PendingWrites}, bounded in
 * bytes) until {@link #write} sends it to storage in one batch. A failed batch goes back in front
 * of what came since, and after a failure the store's health check decides when to try again.
 * Rows past the bound are dropped, or go to the cut log's {@link OverflowStore}, which is written
 * before anything in memory (it holds the older versions). Thread-safe: the collector queues
 * while the writer writes and queries read.
 */
final class WriteQueue {
  private static final Logger LOG = LoggerFactory.getLogger(WriteQueue.class);
  /** Warnings about failed writes and drops are logged at most this often. */
  private static final long WARN_INTERVAL_MILLIS = 30_000;
  /** Rows queued per hold of the queue's lock, so reads of the queue interleave with a big collection. */
  private static final int QUEUE_CHUNK = 2_000;

  private final StorageComponent storage;
  private final long maxBytes;
  /** Guarded by itself; the collector adds, the writer takes. */
  private final PendingWrites pending;
  /** Null when the cut log keeps none: rows past the bound are dropped. */
  private final OverflowStore overflow;
  /** Held while writing, so a forced flush and the writer thread never write concurrently. */
  private final ReentrantLock writeLock = new ReentrantLock();
  private final Counter partialsWritten;
  private final Counter bytesWritten;
  private final Counter partialsDropped;
  private final Counter metadataDropped;
  private final Counter failures;
  private final Counter storageUnavailable;
  private final Timer writeTimer;
  /** The last write failed: probe the store's health before sending the next batch. */
  /** Set by the writer, read by the collector too. */
  private volatile boolean storageDown;
  private volatile int pendingCount;
  private volatile long pendingBytes;
  /** The last spool epoch whose rows were all queued, and the last whose rows were all written (-1: none). */
  private long queuedEpoch = -1;
  private volatile long writtenEpoch = -1;
  private long countedRowDrops;
  private long countedMetadataDrops;
  private final Object warnings = new Object();
  private long lastWarning = Long.MIN_VALUE / 2;
  private long heldBackWarnings;

  WriteQueue(StorageComponent storage, long maxBytes, int maxMetadata, MeterRegistry registry) {
    this(storage, maxBytes, maxMetadata, null, registry);
  }

  WriteQueue(StorageComponent storage, long maxBytes, int maxMetadata, OverflowStore overflow,
      MeterRegistry registry) {
    this.storage = storage;
    this.maxBytes = maxBytes;
    this.overflow = overflow;
    this.pending = new PendingWrites(maxBytes, maxMetadata, overflow != null);
    this.partialsWritten = Counter.builder("sextant_flush_partials_written")
        .description("partial rows (one accumulator's metrics) written to storage").register(registry);
    this.partialsDropped = Counter.builder("sextant_flush_partials_dropped")
        .description("partial rows dropped because more than core.maxPendingMegabytes waited for storage (and,"
            + " with a spool, more than core.spool.maxMegabytes)")
        .register(registry);
    this.metadataDropped = Counter.builder("sextant_flush_metadata_dropped")
        .description("metadata and edges dropped because too many waited for storage").register(registry);
    this.failures = Counter.builder("sextant_flush_failures").description("failed storage writes (retried)")
        .register(registry);
    this.storageUnavailable = Counter.builder("sextant_flush_storage_unavailable")
        .description("write cycles skipped after a failed write because the store's health check still failed")
        .register(registry);
    this.writeTimer = Timer.builder("sextant_storage_write_duration")
        .description("one storage write of everything queued").publishPercentiles(0.5, 0.99)
        .publishPercentileHistogram().register(registry);
    registry.gauge("sextant_flush_pending_partials", this, q -> q.pendingCount);
    registry.gauge("sextant_flush_pending_bytes", this, q -> q.pendingBytes);
    registry.gauge("sextant_flush_pending_fill_ratio", this, WriteQueue::fillRatio);
    if (overflow != null) {
      registry.gauge("sextant_spool_overflow_rows", overflow, OverflowStore::rows);
    }
    this.bytesWritten = Counter.builder("sextant_flush_partial_bytes_written")
        .description("approximate heap bytes of the partial rows written (sizes the pending bound)").register(registry);
  }

  /**
   * Queues the rows and the metadata and edges the snapshots describe (each at most once a minute).
   * When one collection brings more than the queue has room for (a burst of new entities) while
   * storage takes writes, the caller writes what waits first: dropping the oldest rows is for a
   * storage outage, not for a store that keeps up.
   */
  void queue(List<PartialRow> rows, List<Snapshot> snapshots, EntityRegistry entities) {
    queue(rows, snapshots, entities, -1);
  }

  /** As {@link #queue(List, List, EntityRegistry)}; {@code epoch} is the spool cut they come from (-1: none). */
  void queue(List<PartialRow> rows, List<Snapshot> snapshots, EntityRegistry entities, long epoch) {
    for (int from = 0; from < rows.size(); from += QUEUE_CHUNK) {
      if (!storageDown && nearlyFull()) {
        writeIfFree();
      }
      synchronized (pending) {
        rows.subList(from, Math.min(rows.size(), from + QUEUE_CHUNK)).forEach(pending::row);
        spill();
      }
    }
    synchronized (pending) {
      snapshots.forEach(snapshot -> entities.describe(snapshot, pending));
      queuedEpoch = Math.max(queuedEpoch, epoch);
      pendingCount = pending.rowCount();
      pendingBytes = pending.rowBytes();
      countDrops();
    }
  }

  /** The last spool epoch whose rows storage has (or that were dropped, counted); -1 before any. */
  long writtenEpoch() {
    return writtenEpoch;
  }

  /** Hands {@code out} the cells of {@code metric} in rows not written yet; see {@link PendingWrites#rows}. */
  void unwritten(String group, String metric, Collection<String> entityIds, Step step, long start, long end,
      Consumer<MetricPartial> out) {
    synchronized (pending) {
      pending.rows(group, entityIds, step, start, end, row -> {
        for (PartialRow.Cell cell : row.cells()) {
          if (cell.metric().equals(metric)) {
            out.accept(new MetricPartial(metric, row.entityId(), step, row.bucket(), row.writerId(), row.sequence(),
                cell.values(), cell.sketch()));
          }
        }
      });
    }
  }

  private boolean nearlyFull() {
    synchronized (pending) {
      return pending.rowBytes() > maxBytes * 3 / 4;
    }
  }

  /** Writes now unless another write holds the store for more than a second (a slow or frozen store). */
  private void writeIfFree() {
    try {
      if (writeLock.tryLock(1, TimeUnit.SECONDS)) {
        try {
          write();
        } finally {
          writeLock.unlock();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes everything queued; what fails is queued again, behind nothing newer. */
  void write() {
    writeLock.lock();
    try {
      if (storageDown && !storageBack()) {
        return;
      }
      if (!writeOverflow()) {
        return;
      }
      PendingWrites.Batch batch;
      long epoch;
      synchronized (pending) {
        batch = pending.take();
        epoch = queuedEpoch;
        pendingCount = 0;
      }
      if (batch.isEmpty()) {
        writtenEpoch = epoch;
        return;
      }
      long started = System.nanoTime();
      try {
        if (!batch.services.isEmpty()) {
          storage.metadata().upsertServices(List.copyOf(batch.services.values()));
        }
        if (!batch.instances.isEmpty()) {
          storage.metadata().upsertInstances(List.copyOf(batch.instances.values()));
        }
        if (!batch.endpoints.isEmpty()) {
          storage.metadata().upsertEndpoints(List.copyOf(batch.endpoints.values()));
        }
        if (!batch.edges.isEmpty()) {
          storage.topology().write(batch.edges);
        }
        if (!batch.rows.isEmpty()) {
          storage.metrics().write(batch.rowList());
        }
        storage.publish();
        // Only now: fresh reads find the batch's rows here until storage shows them.
        synchronized (pending) {
          pending.written(batch);
          pendingBytes = pending.rowBytes();
        }
        partialsWritten.increment(batch.rows.size());
        bytesWritten.increment((double) batch.rowBytes());
        storageDown = false;
        writtenEpoch = epoch;
        writeTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
      } catch (RuntimeException e) {
        storageDown = true;
        failures.increment();
        List<PartialRow> failedRows = batch.rowList(); // restoring merges newer rows in, or clears them
        synchronized (pending) {
          // Rows that went to the overflow while the batch was out are newer versions: it goes in front.
          boolean behindOverflow = overflow != null && !overflow.isEmpty();
          pending.restore(batch, !behindOverflow);
          if (behindOverflow) {
            toOverflow(failedRows, true);
          }
          spill();
          pendingCount = pending.rowCount();
          pendingBytes = pending.rowBytes();
          countDrops();
        }
        warn("writing " + failedRows.size() + " partial rows failed, will retry: " + e);
      }
    } finally {
      writeLock.unlock();
    }
  }

  /** Writes what waits in the overflow, oldest first; false if storage failed (it stays there). */
  private boolean writeOverflow() {
    if (overflow == null) {
      return true;
    }
    for (OverflowStore.Chunk chunk = overflow.head(); chunk != null; chunk = overflow.head()) {
      try {
        if (!chunk.rows().isEmpty()) {
          storage.metrics().write(chunk.rows());
          storage.publish();
        }
      } catch (RuntimeException e) {
        storageDown = true;
        failures.increment();
        warn("writing " + chunk.rows().size() + " partial rows kept in the spool's overflow failed, will retry: " + e);
        return false;
      }
      overflow.consumed(chunk);
      partialsWritten.increment(chunk.rows().size());
      if (!chunk.intact()) {
        warn("a damaged overflow file of the spool was read up to the damage; the rest of it is lost");
      }
      storageDown = false;
    }
    return true;
  }

  /** Moves rows the bound evicted to the overflow; caller holds the pending lock. */
  private void spill() {
    if (overflow != null) {
      toOverflow(pending.takeEvicted(), false);
    }
  }

  /** Rows to the overflow, at its end or in front; what it cannot keep is counted as dropped. */
  private void toOverflow(List<PartialRow> rows, boolean inFront) {
    if (rows.isEmpty()) {
      return;
    }
    long lost;
    String why = "storage is behind and the spool is full (core.spool.maxMegabytes)";
    try {
      lost = inFront ? overflow.prepend(rows) : overflow.append(rows);
    } catch (RuntimeException e) {
      lost = rows.size();
      why = "storage is behind and writing the spool's overflow failed: " + e;
    }
    if (lost > 0) {
      partialsDropped.increment((double) lost);
      warn("dropped " + lost + " partial rows: " + why);
    }
  }

  /**
   * After a failed write, the store's health probe decides whether to try again: a batch in
   * flight holds its rows while the collector queues newer versions of them, so sending batches
   * into an unreachable store would double what the outage holds in memory.
   */
  private boolean storageBack() {
    CheckResult health;
    try {
      health = storage.check();
    } catch (RuntimeException e) {
      health = CheckResult.failed(e.toString());
    }
    if (!health.ok()) {
      storageUnavailable.increment();
      warn("storage still unavailable (" + health.detail() + "); " + pendingCount + " partial rows wait");
    }
    return health.ok();
  }

  /** Moves the drops the queue counted into the meters; caller holds the pending lock. */
  private void countDrops() {
    long rows = pending.droppedRows() - countedRowDrops;
    long metadata = pending.droppedMetadata() - countedMetadataDrops;
    if (rows + metadata > 0) {
      countedRowDrops += rows;
      countedMetadataDrops += metadata;
      partialsDropped.increment((double) rows);
      metadataDropped.increment((double) metadata);
      warn("dropped " + rows + " partial rows and " + metadata
          + " metadata entries: storage is behind and core.maxPendingMegabytes="
          + maxBytes / (1024 * 1024) + " of rows wait already");
    }
  }

  /** Logs at most once per interval (storage may be away for minutes), saying how many were held back. */
  private void warn(String message) {
    synchronized (warnings) {
      long now = System.currentTimeMillis();
      if (now - lastWarning < WARN_INTERVAL_MILLIS) {
        heldBackWarnings++;
        return;
      }
      lastWarning = now;
      String more = heldBackWarnings == 0 ? "" : " (" + heldBackWarnings + " similar warnings held back)";
      heldBackWarnings = 0;
      LOG.warn("{}{}", message, more);
    }
  }

  /**
   * How full the queue is, 0 to 1: at 1 the oldest waiting rows are dropped. While rows wait in the
   * overflow, how full the spool is: what decides whether what is accepted can still be kept.
   */
  double fillRatio() {
    return overflow == null || overflow.isEmpty() ? (double) pendingBytes / maxBytes : overflow.fillRatio();
  }

  /** Partial rows waiting in memory and in the overflow (not counting a batch being written). */
  int count() {
    return pendingCount + (overflow == null ? 0 : (int) Math.min(Integer.MAX_VALUE, overflow.rows()));
  }
}
