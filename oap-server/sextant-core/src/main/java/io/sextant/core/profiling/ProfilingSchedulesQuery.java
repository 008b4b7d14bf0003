package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingSchedule;
import io.sextant.api.ebpf.ProfilingSchedules;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code queryEBPFProfilingSchedules}: the schedules Rover reported for a task, newest start first
 * (as SkyWalking sorts them), each with its process ({@code null} when the process is unknown).
 */
public final class ProfilingSchedulesQuery {
  /** Schedules listed per task. */
  static final int MAX_SCHEDULES = 10_000;
  /** Slack around the task's run when looking for its schedules (Rover's clock, late uploads). */
  private static final long SLACK_MILLIS = 86_400_000L;

  private final Supplier<RecordStore> records;
  private final Supplier<MetadataStore> metadata;

  public ProfilingSchedulesQuery(Supplier<RecordStore> records, Supplier<MetadataStore> metadata) {
    this.records = records;
    this.metadata = metadata;
  }

  public record ScheduleView(ProfilingSchedule schedule, ProcessMeta process) {}

  public List<ScheduleView> schedules(Optional<ProfilingTask> task, String taskId) {
    if (task.isEmpty()) {
      return List.of();
    }
    long from = Math.min(task.get().startTime(), task.get().createTime()) - SLACK_MILLIS;
    long to = Math.max(task.get().endTime(), task.get().lastUpdateTime()) + SLACK_MILLIS;
    Map<String, ProfilingSchedule> byId = new LinkedHashMap<>();
    for (StoredRecord r : records.get().read(new RecordQuery(ProfilingSchedules.KIND, List.of(taskId), from, to,
        List.of(), MAX_SCHEDULES))) {
      ProfilingSchedule s = ProfilingSchedules.fromRecord(r);
      byId.merge(s.scheduleId(), s, (a, b) -> a.endTime() >= b.endTime() ? a : b);
    }
    Map<String, ProcessMeta> processes = new LinkedHashMap<>();
    List<ScheduleView> out = new ArrayList<>();
    for (ProfilingSchedule s : byId.values()) {
      ProcessMeta p = processes.computeIfAbsent(s.processId(), id -> metadata.get().process(id).orElse(null));
      out.add(new ScheduleView(s, p));
    }
    out.sort(Comparator.comparingLong((ScheduleView v) -> v.schedule().startTime()).reversed());
    return out;
  }
}
