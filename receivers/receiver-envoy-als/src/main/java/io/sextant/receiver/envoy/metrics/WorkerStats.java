package io.sextant.receiver.envoy.metrics;

import static io.sextant.api.metric.EnvoyMetricNames.LISTENER_CX_ACTIVE_IMBALANCE;
import static io.sextant.api.metric.EnvoyMetricNames.LISTENER_CX_INCR_IMBALANCE;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_CX_ACTIVE;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_CX_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_WATCHDOG_MEGA_MISS_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_WATCHDOG_MISS_INCR;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Envoy's worker threads in one snapshot. Envoy hands each accepted connection to one worker for
 * its whole life, so a few long-lived HTTP/2 or gRPC connections can saturate one worker while the
 * others idle (envoyproxy/envoy#4602). Its per-handler listener statistics ({@code
 * listener.<address>.worker_<N>.downstream_cx_active} gauges, {@code ..._total} counters) and
 * per-thread watchdog counters ({@code server.worker_<N>.watchdog_miss}, {@code _mega_miss}) show
 * it; {@code server.concurrency} says how many workers there are, since Envoy leaves out a worker's
 * statistics until it was used. The admin listener ({@code listener.admin.main_thread.*}) is not a
 * worker's.
 */
final class WorkerStats {
  private static final Pattern LISTENER =
      Pattern.compile("listener\\.(.+)\\.worker_(\\d{1,4})\\.downstream_cx_(active|total)");
  private static final Pattern WATCHDOG =
      Pattern.compile("server\\.(worker_(\\d{1,4})|main_thread)\\.(watchdog_miss|watchdog_mega_miss)");
  /**
   * Istio's virtual outbound listener accepts an application's outbound connections and hands each
   * to the listener of its destination, which counts it again: its accepts are left out of a
   * worker's, not out of its own listener's ratio.
   */
  private static final String HAND_OFF_LISTENER_SUFFIX = "_15001";
  private static final String ACTIVE = "active";
  /** The metrics this makes. */
  static final Set<String> METRICS = Set.of(WORKER_CX_ACTIVE, WORKER_CX_INCR, WORKER_WATCHDOG_MISS_INCR,
      WORKER_WATCHDOG_MEGA_MISS_INCR, LISTENER_CX_ACTIVE_IMBALANCE, LISTENER_CX_INCR_IMBALANCE);

  /** listener → worker → open connections, and → connections accepted since the last snapshot. */
  private final Map<String, Map<Integer, Long>> active = new TreeMap<>();
  private final Map<String, Map<Integer, Long>> accepted = new TreeMap<>();
  private final Map<String, Long> watchdogMisses = new TreeMap<>();
  private final Map<String, Long> watchdogMegaMisses = new TreeMap<>();

  /**
   * Takes the statistic if it is a worker's: a gauge's value, or a counter's increase from {@code
   * baselines}; false if it is not one of these.
   */
  boolean take(String name, double value, CounterBaselines baselines, Runnable onCounterNotTracked) {
    Matcher l = LISTENER.matcher(name);
    if (l.matches()) {
      int worker = Integer.parseInt(l.group(2));
      if (l.group(3).equals(ACTIVE)) {
        active.computeIfAbsent(l.group(1), k -> new TreeMap<>()).merge(worker, Math.round(value), Long::sum);
      } else {
        long v = baselines.increase(name, value);
        if (v < 0) {
          onCounterNotTracked.run();
        } else {
          accepted.computeIfAbsent(l.group(1), k -> new TreeMap<>()).merge(worker, v, Long::sum);
        }
      }
      return true;
    }
    Matcher w = WATCHDOG.matcher(name);
    if (w.matches()) {
      long v = baselines.increase(name, value);
      if (v < 0) {
        onCounterNotTracked.run();
      } else {
        String thread = w.group(2) != null ? w.group(2) : w.group(1);
        (w.group(3).equals("watchdog_miss") ? watchdogMisses : watchdogMegaMisses).merge(thread, v, Long::sum);
      }
      return true;
    }
    return false;
  }

  /**
   * The snapshot's samples as (metric, label) → value: per-worker connections and accepts summed
   * over listeners, watchdog misses per thread, and per listener the imbalance ratios over {@code
   * workers} workers (0: unknown, then the workers seen).
   */
  void emit(long workers, Sample out) {
    Map<Integer, Long> activeByWorker = new TreeMap<>();
    Map<Integer, Long> acceptedByWorker = new TreeMap<>();
    active.forEach((listener, byWorker) -> byWorker.forEach((w, v) -> activeByWorker.merge(w, v, Long::sum)));
    accepted.forEach((listener, byWorker) -> {
      if (!listener.endsWith(HAND_OFF_LISTENER_SUFFIX)) {
        byWorker.forEach((w, v) -> acceptedByWorker.merge(w, v, Long::sum));
      }
    });
    perWorker(activeByWorker, workers, (w, v) -> out.add(WORKER_CX_ACTIVE, w, v));
    perWorker(acceptedByWorker, workers, (w, v) -> out.add(WORKER_CX_INCR, w, v));
    watchdogMisses.forEach((thread, v) -> out.add(WORKER_WATCHDOG_MISS_INCR, thread, v));
    watchdogMegaMisses.forEach((thread, v) -> out.add(WORKER_WATCHDOG_MEGA_MISS_INCR, thread, v));
    active.forEach((listener, byWorker) -> imbalance(byWorker, workers, r -> out.add(
        LISTENER_CX_ACTIVE_IMBALANCE, listener, r)));
    accepted.forEach((listener, byWorker) -> imbalance(byWorker, workers, r -> out.add(
        LISTENER_CX_INCR_IMBALANCE, listener, r)));
  }

  /** Receives one sample of the snapshot. */
  interface Sample {
    void add(String metric, String label, long value);
  }

  /** Every worker, those Envoy left out (never used) at zero. */
  private static void perWorker(Map<Integer, Long> byWorker, long workers, BiConsumer<String, Long> out) {
    if (byWorker.isEmpty()) {
      return;
    }
    for (int w = 0; w < workerCount(byWorker, workers); w++) {
      out.accept(String.valueOf(w), byWorker.getOrDefault(w, 0L));
    }
  }

  /** 100 × the busiest worker's count over {@code ceil(total / workers)}; nothing when all are 0. */
  private static void imbalance(Map<Integer, Long> byWorker, long workers, LongConsumer out) {
    long total = 0;
    long max = 0;
    for (long v : byWorker.values()) {
      total += v;
      max = Math.max(max, v);
    }
    if (total > 0) {
      long count = workerCount(byWorker, workers);
      long evenShare = (total + count - 1) / count;
      out.accept(Math.round(100.0 * max / evenShare));
    }
  }

  /** {@code server.concurrency}, or when it is unknown or too small the workers the statistics name. */
  private static long workerCount(Map<Integer, Long> byWorker, long workers) {
    return Math.max(workers, byWorker.keySet().stream().mapToLong(w -> w + 1L).max().orElse(1));
  }
}
