package io.sextant.core.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the virtual processes ({@code UNKNOWN_LOCAL}, {@code UNKNOWN_REMOTE}, detect type {@code
 * VIRTUAL}) that Rover's meters name, as SkyWalking's {@code ProcessRegistry} does: at most once per
 * process and minute (a bounded cache), off the network threads, on one writer thread with a bounded
 * queue (past it a write waits for the next minute, counted). Process metadata is not derived from
 * metrics by the flusher's {@link EntityRegistry}: the receiver names these processes as it reads
 * Rover's meters, and {@link StoredProcessRegistry} hands them here.
 */
final class VirtualProcesses implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VirtualProcesses.class);
  private static final int QUEUE = 10_000;

  private final Consumer<List<ProcessMeta>> upsert;
  private final TimeBuckets buckets;
  private final int maxCached;
  private final Map<String, Long> writtenMinute = new ConcurrentHashMap<>();
  private final BlockingQueue<ProcessMeta> queue = new ArrayBlockingQueue<>(QUEUE);
  private final Counter dropped;
  private final Counter failed;
  private final Thread writer;
  private volatile boolean running = true;

  VirtualProcesses(Consumer<List<ProcessMeta>> upsert, TimeBuckets buckets, int maxCached, MeterRegistry registry) {
    this.upsert = upsert;
    this.buckets = buckets;
    this.maxCached = maxCached;
    this.dropped = Counter.builder("sextant_ebpf_virtual_processes_dropped").register(registry);
    this.failed = Counter.builder("sextant_ebpf_virtual_processes_failed").register(registry);
    this.writer = new Thread(this::run, "sextant-rover-virtual-processes");
    this.writer.setDaemon(true);
  }

  void start() {
    writer.start();
  }

  /** Queues the virtual process {@code name} of the instance unless it was queued this minute. */
  void seen(String service, String instance, String name) {
    String serviceId = EntityIds.serviceId(service, true);
    String instanceId = EntityIds.instanceId(serviceId, instance);
    String id = ProcessIds.processId(instanceId, name);
    long minute = buckets.currentMinuteBucket();
    Long last = writtenMinute.get(id);
    if (last != null && last == minute) {
      return;
    }
    if (writtenMinute.size() >= maxCached) {
      writtenMinute.clear(); // forgetting only rewrites a process once more
    }
    writtenMinute.put(id, minute);
    ProcessMeta meta = new ProcessMeta(id, serviceId, instanceId, name, "", "", "VIRTUAL", List.of(), Map.of(),
        false, minute, minute);
    if (!queue.offer(meta)) {
      writtenMinute.remove(id, minute);
      dropped.increment();
    }
  }

  private void run() {
    List<ProcessMeta> batch = new ArrayList<>();
    while (running || !queue.isEmpty()) {
      try {
        ProcessMeta first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 999);
        upsert.accept(List.copyOf(batch));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        failed.increment(batch.size());
        batch.forEach(p -> writtenMinute.remove(p.id())); // written again when next seen
        LOG.warn("writing {} virtual processes failed: {}", batch.size(), e.toString());
      }
      batch.clear();
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
