package io.sextant.core.topology;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.receiver.ProcessRegistry;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Core's {@link ProcessRegistry}: the entities an agent reports, beside the ones {@link
 * EntityRegistry} derives from metrics. Rover pings every process every 20 seconds; storage keeps
 * minute buckets, so each process, service and instance is written at most once a minute by this
 * collector ({@link WrittenThisMinute}) and the load on storage stays flat however often Rover
 * pings. Every write publishes (Elasticsearch refreshes), because Rover's next call, a task poll
 * seconds later, searches for what it just registered, while the flusher publishes only after it
 * writes metrics.
 */
public final class StoredProcessRegistry implements ProcessRegistry, AutoCloseable {
  /** Entities remembered as written this minute; forgetting only costs one more write each. */
  private static final int MAX_REMEMBERED = 200_000;
  private static final int MAX_VIRTUAL_REMEMBERED = 100_000;

  private final StorageComponent storage;
  private final WrittenThisMinute written = new WrittenThisMinute(MAX_REMEMBERED);
  private final VirtualProcesses virtuals;

  public StoredProcessRegistry(StorageComponent storage, TimeBuckets buckets, MeterRegistry meters) {
    this.storage = storage;
    this.virtuals = new VirtualProcesses(this::upsertProcesses, buckets, MAX_VIRTUAL_REMEMBERED, meters);
  }

  /** Starts the writer of virtual processes. */
  public void start() {
    virtuals.start();
  }

  @Override
  public void report(List<ProcessMeta> processes) {
    if (processes.isEmpty()) {
      return;
    }
    // A report is rare (a process discovered, or Rover restarted) and carries the full
    // description: always written, and it counts as this minute's write of the process.
    List<String> keys = processes.stream().map(StoredProcessRegistry::processKey).toList();
    for (int i = 0; i < processes.size(); i++) {
      written.firstIn(keys.get(i), processes.get(i).lastPing());
    }
    write(keys, () -> upsertProcesses(processes));
  }

  @Override
  public void alive(List<AliveProcess> alive) {
    List<ProcessMeta> processes = new ArrayList<>();
    List<ServiceMeta> services = new ArrayList<>();
    List<InstanceMeta> instances = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (AliveProcess a : alive) {
      ProcessMeta p = a.process();
      long minute = p.lastPing();
      if (firstIn(processKey(p), minute, keys)) {
        processes.add(p);
      }
      if (firstIn("service|" + p.serviceId() + "|" + p.layer(), minute, keys)) {
        services.add(new ServiceMeta(p.serviceId(), a.serviceName(), true, Set.of(p.layer()), minute, minute));
      }
      // One write a minute per instance, whichever of its processes (and layers) pings first.
      if (firstIn("instance|" + p.instanceId(), minute, keys)) {
        instances.add(new InstanceMeta(p.instanceId(), p.serviceId(), a.instanceName(), p.layer(), Map.of(), minute,
            minute));
      }
    }
    write(keys, () -> {
      if (!processes.isEmpty()) {
        storage.metadata().upsertProcesses(processes);
      }
      if (!services.isEmpty()) {
        storage.metadata().upsertServices(services);
      }
      if (!instances.isEmpty()) {
        storage.metadata().upsertInstances(instances);
      }
      if (!processes.isEmpty() || !services.isEmpty() || !instances.isEmpty()) {
        storage.publish();
      }
    });
  }

  @Override
  public void virtual(String serviceName, String instanceName, String processName) {
    virtuals.seen(serviceName, instanceName, processName);
  }

  @Override
  public List<ProcessMeta> ofAgent(String agentId, int limit) {
    return storage.metadata().processes(new ProcessQuery(null, null, agentId, 0, Long.MAX_VALUE, limit));
  }

  @Override
  public void close() {
    virtuals.close();
  }

  private void upsertProcesses(List<ProcessMeta> processes) {
    storage.metadata().upsertProcesses(processes);
    storage.publish();
  }

  /** A process is written again within the minute when Rover describes it differently. */
  private static String processKey(ProcessMeta p) {
    return "process|" + p.id() + "|" + p.layer() + "|" + p.agentId() + "|" + p.labels();
  }

  private boolean firstIn(String key, long minute, List<String> keys) {
    if (written.firstIn(key, minute)) {
      keys.add(key);
      return true;
    }
    return false;
  }

  /** Runs the writes; if they fail, the next ping writes them again. */
  private void write(List<String> keys, Runnable writes) {
    try {
      writes.run();
    } catch (RuntimeException e) {
      keys.forEach(written::forget);
      throw e;
    }
  }
}
