package io.sextant.core.topology;

import java.util.concurrent.ConcurrentHashMap;

/**
 * What this collector wrote in the current minute. Rover pings every process every 20 seconds;
 * storage keeps minute buckets, so one write a minute per process, service and instance says all
 * there is to say and the load on storage stays flat however often Rover pings. Bounded: when full
 * it forgets everything, which only costs one extra write per entity.
 */
final class WrittenThisMinute {
  private final int maxEntries;
  private final ConcurrentHashMap<String, Long> minutes = new ConcurrentHashMap<>();

  WrittenThisMinute(int maxEntries) {
    this.maxEntries = maxEntries;
  }

  /** True (and remembered) unless {@code key} was already written in {@code minute}. */
  boolean firstIn(String key, long minute) {
    if (minutes.size() >= maxEntries) {
      minutes.clear();
    }
    Long before = minutes.put(key, minute);
    return before == null || before != minute;
  }

  /** The write of {@code key} failed: the next ping writes it again. */
  void forget(String key) {
    minutes.remove(key);
  }
}
