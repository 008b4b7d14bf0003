package io.sextant.receiver.envoy.als;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes error logs to the record store on a thread of its own, in batches of what is queued, so a
 * proxy's stream never waits on storage. While storage refuses, the batch is tried again every
 * second and new logs wait in the bounded queue; past it they are counted ({@code queue_full}), never
 * held in memory without bound. Logs are not spooled: a collector killed with logs queued loses
 * those (the calls' metrics, which are, stay exact).
 */
final class LogWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);
  private static final int MAX_BATCH = 500;
  private static final long RETRY_MILLIS = 1_000;

  private final RecordWriter records;
  private final BlockingQueue<StoredRecord> queue;
  private final Thread thread;
  private final Counter stored;
  private final Counter queueFull;
  private final Counter failed;
  private volatile boolean closing;

  LogWriter(RecordWriter records, int capacity, MeterRegistry registry) {
    this.records = records;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, "sextant-als-log-writer");
    thread.setDaemon(true);
    this.stored = outcome(registry, "stored");
    this.queueFull = outcome(registry, "queue_full");
    this.failed = outcome(registry, "failed");
    Gauge.builder("sextant_als_error_logs_pending", queue, BlockingQueue::size)
        .description("error logs waiting to be written").register(registry);
  }

  static Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder("sextant_als_error_logs").tag("outcome", outcome)
        .description("Envoy access-log entries kept as logs, by what became of them").register(registry);
  }

  void start() {
    thread.start();
  }

  /** Queues a log; never blocks. */
  void offer(StoredRecord log) {
    if (closing || !queue.offer(log)) {
      queueFull.increment();
    }
  }

  private void run() {
    List<StoredRecord> batch = new ArrayList<>();
    while (!closing || !queue.isEmpty() || !batch.isEmpty()) {
      try {
        if (batch.isEmpty()) {
          StoredRecord first = queue.poll(200, TimeUnit.MILLISECONDS);
          if (first == null) {
            continue;
          }
          batch.add(first);
          queue.drainTo(batch, MAX_BATCH - 1);
        }
        records.write(List.copyOf(batch));
        stored.increment(batch.size());
        batch.clear();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        if (closing) {
          failed.increment(batch.size());
          LOG.warn("{} error logs not written at shutdown: {}", batch.size(), e.toString());
          batch.clear();
        } else {
          LOG.warn("writing {} error logs failed, trying again in a second: {}", batch.size(), e.toString());
          sleep();
        }
      }
    }
    failed.increment(batch.size() + queue.size());
  }

  private static void sleep() {
    try {
      Thread.sleep(RETRY_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes what is queued (one last try if storage refuses), then stops. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
