package io.sextant.receiver.ebpf.process;

import java.util.HashMap;
import java.util.Map;

/**
 * At most {@code maxPerService} processes alive per service, counted by this collector: a process
 * is alive for {@value #ALIVE_MINUTES} minutes after its last report or ping here. A local count
 * instead of a store query keeps a ping free of reads; the price is that behind a balancer each
 * collector counts only the processes whose Rovers call it (a service can reach collectors ×
 * limit), and a restart starts counting afresh. Bounded: past {@code maxTracked} processes in all
 * it forgets everything, which only loosens the limit for a while.
 */
final class ServiceProcessLimit {
  static final long ALIVE_MINUTES = 10;

  private final int maxPerService;
  private final int maxTracked;
  private final Map<String, Map<String, Long>> byService = new HashMap<>();
  private int tracked;

  ServiceProcessLimit(int maxPerService, int maxTracked) {
    this.maxPerService = maxPerService;
    this.maxTracked = maxTracked;
  }

  /** Whether the process may be stored; {@code epochMinute} is minutes since the epoch. */
  synchronized boolean admit(String serviceId, String processId, long epochMinute) {
    Map<String, Long> alive = byService.get(serviceId);
    if (alive != null && alive.containsKey(processId)) {
      alive.put(processId, epochMinute);
      return true;
    }
    if (alive != null && alive.size() >= maxPerService) {
      int before = alive.size();
      alive.values().removeIf(last -> last < epochMinute - ALIVE_MINUTES);
      tracked -= before - alive.size();
      if (alive.size() >= maxPerService) {
        return false;
      }
    }
    if (tracked >= maxTracked) {
      byService.clear();
      tracked = 0;
    }
    byService.computeIfAbsent(serviceId, s -> new HashMap<>()).put(processId, epochMinute);
    tracked++;
    return true;
  }
}
