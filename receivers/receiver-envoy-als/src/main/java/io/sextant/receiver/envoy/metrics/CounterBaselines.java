package io.sextant.receiver.envoy.metrics;

import java.util.HashMap;
import java.util.Map;

/**
 * One stream's counter totals, to turn Envoy's cumulative counters into increases. The stream's
 * first snapshot only sets the baselines (its totals count since the proxy started). Envoy sends a
 * counter only once it was used, so a counter first seen in a later snapshot went up from zero
 * since the one before: its whole total is the increase (else a worker's first watchdog miss, or
 * the first requests to a newly used cluster, would be lost). A counter that went down was reset.
 */
final class CounterBaselines {
  /** Baselines kept per stream; a proxy has a few hundred clusters and listeners × workers at most. */
  static final int MAX_COUNTERS = 10_000;

  private final Map<String, Double> last = new HashMap<>();
  private boolean afterFirstSnapshot;

  /** Marks the end of a snapshot: counters first seen from now on started at zero. */
  void snapshotDone() {
    afterFirstSnapshot = true;
  }

  /** The increase of counter {@code name} to {@code total}, or -1 when no baseline can be kept. */
  long increase(String name, double total) {
    Double previous = last.get(name);
    if (previous == null && last.size() >= MAX_COUNTERS) {
      return -1;
    }
    last.put(name, total);
    if (previous == null) {
      return afterFirstSnapshot ? Math.round(total) : 0;
    }
    return Math.round(total >= previous ? total - previous : total);
  }
}
