package io.sextant.receiver.event;

import io.sextant.api.event.Event;
import io.sextant.api.event.EventRecords;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StoredRecord;
import io.sextant.receiver.common.Rejection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes events on its own thread, in batches of whatever is queued, and tells each stream how
 * its events fared. One thread for all streams, so the read-modify-write that merges a report into
 * the stored event of its uuid never races with another report of the same event on this collector.
 * Events written lately are remembered (bounded), so a merge does not depend on the store having
 * made the previous write searchable.
 */
final class EventWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventWriter.class);
  private static final int MAX_BATCH = 1_000;
  private static final int REMEMBERED = 10_000;

  /** What happened to one event; called on the writer thread. */
  interface Outcome {
    void stored();

    void rejected(Rejection rejection);

    void failed(RuntimeException cause);
  }

  private record Pending(Event event, long receivedMillis, Outcome outcome) {}

  private final RecordWriter records;
  private final BlockingQueue<Pending> queue;
  private final Map<String, StoredRecord> recent = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, StoredRecord> eldest) {
      return size() > REMEMBERED;
    }
  };
  private final Thread thread;
  private volatile boolean closing;

  EventWriter(RecordWriter records, int capacity) {
    this.records = records;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, "sextant-event-writer");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Queues an event; false when the queue is full (or the writer is closing). Never blocks. */
  boolean offer(Event event, long receivedMillis, Outcome outcome) {
    return !closing && queue.offer(new Pending(event, receivedMillis, outcome));
  }

  int pending() {
    return queue.size();
  }

  private void run() {
    List<Pending> batch = new ArrayList<>();
    while (!closing || !queue.isEmpty()) {
      try {
        Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        write(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // Never let the writer thread die: every outcome is reported inside write().
        LOG.error("event writer failed unexpectedly", e);
      } finally {
        batch.clear();
      }
    }
  }

  private void write(List<Pending> batch) {
    Map<String, StoredRecord> merged = new LinkedHashMap<>();
    List<Pending> applied = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      String uuid = p.event().uuid();
      StoredRecord before;
      try {
        before = merged.containsKey(uuid) ? merged.get(uuid) : stored(uuid);
      } catch (RuntimeException e) {
        p.outcome().failed(e);
        continue;
      }
      if (before == null) {
        Rejection missing = missingIdentity(p.event());
        if (missing != null) {
          p.outcome().rejected(missing);
          continue;
        }
        merged.put(uuid, EventRecords.toRecord(p.event(), fileTime(p.event(), p.receivedMillis())));
      } else {
        Event updated = EventRecords.fromRecord(before).mergedWith(p.event());
        merged.put(uuid, EventRecords.toRecord(updated, before.timeMillis()));
      }
      applied.add(p);
    }
    if (applied.isEmpty()) {
      return;
    }
    try {
      records.write(List.copyOf(merged.values()));
    } catch (RuntimeException e) {
      LOG.warn("writing {} events failed: {}", merged.size(), e.toString());
      applied.forEach(p -> p.outcome().failed(e));
      return;
    }
    recent.putAll(merged);
    applied.forEach(p -> p.outcome().stored());
  }

  /** The event already written with this uuid, from memory or from the store; null if none. */
  private StoredRecord stored(String uuid) {
    StoredRecord r = recent.get(uuid);
    if (r != null) {
      return r;
    }
    List<StoredRecord> found = records.read(new RecordQuery(EventRecords.KIND, null, 0, Long.MAX_VALUE,
        List.of(StoredRecord.tag(EventRecords.UUID, uuid)), 1));
    return found.isEmpty() ? null : found.get(0);
  }

  /** The first report of an event must say what it is and where: later ones may carry only times. */
  private static Rejection missingIdentity(Event e) {
    if (e.name().isEmpty()) {
      return new Rejection("missing_name", "name is required in the first report of an event");
    }
    if (e.service().isEmpty()) {
      return new Rejection("missing_service", "source.service is required in the first report of an event");
    }
    return null;
  }

  /** An event is filed at its start, else its end, else when it was received. */
  private static long fileTime(Event e, long receivedMillis) {
    return e.startTime() > 0 ? e.startTime() : e.endTime() > 0 ? e.endTime() : receivedMillis;
  }

  /** Writes what is queued, then stops. Idempotent. */
  @Override
  public void close() {
    closing = true;
    if (thread.isAlive()) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
