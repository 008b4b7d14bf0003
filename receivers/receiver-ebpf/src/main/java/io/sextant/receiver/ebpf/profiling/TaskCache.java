package io.sextant.receiver.ebpf.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The task list for Rover's polls, read from storage at most every {@code ttlMillis}: every Rover
 * polls every 10 s, and each poll would otherwise list every task document. One entry per
 * collector, so it is bounded by the number of tasks. Rover keeps the newest update time it saw, so
 * a stale list only delays a task, never repeats it.
 */
final class TaskCache {
  private final Supplier<List<ProfilingTask>> load;
  private final long ttlMillis;
  private final LongSupplier clock;
  private List<ProfilingTask> tasks;
  private long loadedAt;

  TaskCache(Supplier<List<ProfilingTask>> load, long ttlMillis, LongSupplier clock) {
    this.load = load;
    this.ttlMillis = ttlMillis;
    this.clock = clock;
  }

  synchronized List<ProfilingTask> tasks() {
    long now = clock.getAsLong();
    if (tasks == null || ttlMillis == 0 || now - loadedAt >= ttlMillis) {
      tasks = List.copyOf(load.get());
      loadedAt = now;
    }
    return tasks;
  }
}
