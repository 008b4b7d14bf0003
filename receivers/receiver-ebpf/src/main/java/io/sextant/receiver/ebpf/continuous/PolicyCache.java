package io.sextant.receiver.ebpf.continuous;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The continuous-profiling policies this collector read, by service id, each kept for a fixed time
 * after it was read (as SkyWalking's cache expires after write), a service without a policy too, so
 * that every Rover's poll (every few seconds, per service) does not read storage. Bounded: past
 * {@code maxEntries} the oldest reads are forgotten.
 */
final class PolicyCache {
  private record Entry(Optional<ContinuousProfilingPolicy> policy, long readAtNanos) {}

  private final long ttlNanos;
  private final int maxEntries;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();

  PolicyCache(long ttlSeconds, int maxEntries, LongSupplier nanoTime) {
    this.ttlNanos = ttlSeconds * 1_000_000_000L;
    this.maxEntries = maxEntries;
    this.nanoTime = nanoTime;
  }

  /**
   * The policy of each service (absent: none), from the cache where fresh, else through {@code load}
   * (given the service ids to read, answering the policies found).
   */
  Map<String, Optional<ContinuousProfilingPolicy>> policies(List<String> serviceIds,
      Function<List<String>, Map<String, ContinuousProfilingPolicy>> load) {
    Map<String, Optional<ContinuousProfilingPolicy>> out = new HashMap<>();
    List<String> missing = new ArrayList<>();
    long now = nanoTime.getAsLong();
    synchronized (entries) {
      for (String id : serviceIds) {
        Entry e = entries.get(id);
        if (e != null && now - e.readAtNanos() < ttlNanos) {
          out.put(id, e.policy());
        } else {
          missing.add(id);
        }
      }
    }
    if (missing.isEmpty()) {
      return out;
    }
    Map<String, ContinuousProfilingPolicy> loaded = load.apply(missing); // storage I/O outside the lock
    synchronized (entries) {
      for (String id : missing) {
        Optional<ContinuousProfilingPolicy> policy = Optional.ofNullable(loaded.get(id));
        out.put(id, policy);
        if (ttlNanos > 0) {
          entries.remove(id); // re-insert so that insertion order is read order
          entries.put(id, new Entry(policy, now));
        }
      }
      while (entries.size() > maxEntries) {
        entries.remove(entries.keySet().iterator().next());
      }
    }
    return out;
  }
}
