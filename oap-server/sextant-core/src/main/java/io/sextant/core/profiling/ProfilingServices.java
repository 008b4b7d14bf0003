package io.sextant.core.profiling;

import io.sextant.api.storage.StorageComponent;
import java.time.Clock;

/** The eBPF profiling side of the query services: tasks (reads and writes), schedules, flame graphs. */
public record ProfilingServices(ProfilingTaskService tasks, ProfilingSchedulesQuery schedules,
    ProfilingAnalysis analysis) {
  public static ProfilingServices over(StorageComponent storage, Clock clock) {
    return new ProfilingServices(new ProfilingTaskService(storage::management, storage::metadata, clock),
        new ProfilingSchedulesQuery(storage::records, storage::metadata),
        new ProfilingAnalysis(storage::records, ProfilingAnalysis.DEFAULT_MAX_RECORDS));
  }
}
