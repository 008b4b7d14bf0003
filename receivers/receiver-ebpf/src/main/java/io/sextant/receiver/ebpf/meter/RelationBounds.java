package io.sextant.receiver.ebpf.meter;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@code maxPerProcess} peers per local process and minute, so a process talking to
 * ever-new peers cannot grow the relation entities without bound; the whole table is forgotten each
 * minute and when it holds {@code maxProcesses} processes.
 */
final class RelationBounds {
  private final int maxPerProcess;
  private final int maxProcesses;
  private volatile long minute = Long.MIN_VALUE;
  private final Map<String, Set<String>> peers = new ConcurrentHashMap<>();

  RelationBounds(int maxPerProcess, int maxProcesses) {
    this.maxPerProcess = maxPerProcess;
    this.maxProcesses = maxProcesses;
  }

  boolean admit(long currentMinute, String local, String peer) {
    if (currentMinute != minute || peers.size() >= maxProcesses) {
      minute = currentMinute;
      peers.clear();
    }
    Set<String> set = peers.computeIfAbsent(local, k -> ConcurrentHashMap.newKeySet());
    if (set.contains(peer)) {
      return true;
    }
    if (set.size() >= maxPerProcess) {
      return false;
    }
    set.add(peer);
    return true;
  }
}
