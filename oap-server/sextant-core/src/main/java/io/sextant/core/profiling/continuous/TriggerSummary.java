package io.sextant.core.profiling.continuous;

import io.sextant.api.ebpf.ProfilingTask;
import java.util.List;

/**
 * How often Rover triggered profiling (tasks in the window) and when last (the newest task's start,
 * epoch ms; null when never), as SkyWalking sums its {@code CONTINUOUS_PROFILING} tasks.
 */
record TriggerSummary(int count, Long lastTriggerTimestamp) {
  static final TriggerSummary NONE = new TriggerSummary(0, null);

  static TriggerSummary of(List<ProfilingTask> tasks) {
    if (tasks.isEmpty()) {
      return NONE;
    }
    long last = tasks.stream().mapToLong(ProfilingTask::startTime).max().orElseThrow();
    return new TriggerSummary(tasks.size(), last);
  }
}
