package io.sextant.testkit.receiver;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.receiver.ProcessRegistry;
import io.sextant.api.receiver.ProfilingTasks;
import io.sextant.api.storage.ProcessMeta;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Core's agent ports held in memory, for receiver tests that run without a server: what a receiver
 * registered (in call order) and the tasks and policies it reads. {@link #failing} makes every call
 * throw, as the ports do when storage is unavailable. Thread-safe.
 */
public final class InMemoryAgentPorts implements ProcessRegistry, ProfilingTasks {
  private final List<ProcessMeta> reported = new ArrayList<>();
  private final List<AliveProcess> alive = new ArrayList<>();
  private final List<String> virtual = new ArrayList<>();
  private final Map<String, ProfilingTask> tasks = new LinkedHashMap<>();
  private final Map<String, ContinuousProfilingPolicy> policies = new HashMap<>();
  private volatile boolean failing;

  /** Every later call throws, as on a storage outage (or stops throwing). */
  public void failing(boolean failing) {
    this.failing = failing;
  }

  public synchronized List<ProcessMeta> reported() {
    return List.copyOf(reported);
  }

  public synchronized List<AliveProcess> alive() {
    return List.copyOf(alive);
  }

  /** The virtual processes named, as {@code service/instance/process}. */
  public synchronized List<String> virtual() {
    return List.copyOf(virtual);
  }

  public synchronized void putPolicy(ContinuousProfilingPolicy policy) {
    policies.put(policy.serviceId(), policy);
  }

  @Override
  public synchronized void report(List<ProcessMeta> processes) {
    check();
    reported.addAll(processes);
  }

  @Override
  public synchronized void alive(List<AliveProcess> processes) {
    check();
    alive.addAll(processes);
  }

  @Override
  public synchronized void virtual(String serviceName, String instanceName, String processName) {
    virtual.add(serviceName + "/" + instanceName + "/" + processName);
  }

  /** The processes this agent reported, the newest description of each. */
  @Override
  public synchronized List<ProcessMeta> ofAgent(String agentId, int limit) {
    check();
    Map<String, ProcessMeta> byId = new LinkedHashMap<>();
    reported.stream().filter(p -> p.agentId().equals(agentId)).forEach(p -> byId.put(p.id(), p));
    return byId.values().stream().limit(limit).toList();
  }

  @Override
  public synchronized List<ProfilingTask> all() {
    check();
    return List.copyOf(tasks.values());
  }

  @Override
  public synchronized boolean exists(String taskId) {
    check();
    return tasks.containsKey(taskId);
  }

  @Override
  public synchronized void add(ProfilingTask task) {
    check();
    tasks.putIfAbsent(task.taskId(), task);
  }

  @Override
  public synchronized Map<String, ContinuousProfilingPolicy> policies(Collection<String> serviceIds) {
    check();
    Map<String, ContinuousProfilingPolicy> out = new HashMap<>();
    serviceIds.forEach(id -> {
      if (policies.containsKey(id)) {
        out.put(id, policies.get(id));
      }
    });
    return out;
  }

  private void check() {
    if (failing) {
      throw new IllegalStateException("storage unavailable (test)");
    }
  }
}
