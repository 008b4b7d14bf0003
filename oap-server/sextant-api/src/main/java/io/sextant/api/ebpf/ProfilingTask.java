package io.sextant.api.ebpf;

import java.util.List;

/**
 * One eBPF profiling task, as SkyWalking's {@code EBPFProfilingTaskRecord} describes it: which
 * processes (of {@code serviceId}, optionally only those carrying every label of {@code
 * processLabels}; of {@code instanceId} for a network task; the one {@code processId} for a task
 * Rover triggered itself) are profiled, what ({@code targetType}: {@code ON_CPU}, {@code OFF_CPU},
 * {@code NETWORK}), from {@code startTime} (epoch ms) for {@code fixedTriggerDurationSeconds}.
 * {@code triggerType} is {@code FIXED_TIME} (created through GraphQL) or {@code
 * CONTINUOUS_PROFILING} (reported by Rover, with its {@code causes}). {@code lastUpdateTime} grows
 * when a network task is kept alive: Rover polls for tasks updated after the last one it saw.
 * {@code extensionConfigJson} is the network task's sampling rules as Rover reads them ({@code ""}
 * if none). Empty strings stand for absent ids.
 */
public record ProfilingTask(
    String taskId,
    String serviceId,
    String instanceId,
    String processId,
    List<String> processLabels,
    String targetType,
    String triggerType,
    long startTime,
    long fixedTriggerDurationSeconds,
    long createTime,
    long lastUpdateTime,
    String extensionConfigJson,
    List<Cause> causes) {

  public static final String ON_CPU = "ON_CPU";
  public static final String OFF_CPU = "OFF_CPU";
  public static final String NETWORK = "NETWORK";
  public static final String FIXED_TIME = "FIXED_TIME";
  public static final String CONTINUOUS_PROFILING = "CONTINUOUS_PROFILING";

  public ProfilingTask {
    processLabels = List.copyOf(processLabels);
    causes = List.copyOf(causes);
  }

  /** When the task stops profiling, epoch ms. */
  public long endTime() {
    return startTime + fixedTriggerDurationSeconds * 1000;
  }

  /** The same task, kept alive: updated at {@code now} and running until at least {@code newEnd}. */
  public ProfilingTask keptAlive(long now, long newEnd) {
    long duration = Math.max(fixedTriggerDurationSeconds, (newEnd - startTime + 999) / 1000);
    return new ProfilingTask(taskId, serviceId, instanceId, processId, processLabels, targetType, triggerType,
        startTime, duration, createTime, now, extensionConfigJson, causes);
  }

  /**
   * Why Rover triggered a continuous-profiling task: a monitor {@code type} (SkyWalking's {@code
   * ContinuousProfilingMonitorType}: {@code PROCESS_CPU}, {@code PROCESS_THREAD_COUNT}, {@code
   * SYSTEM_LOAD}, {@code HTTP_ERROR_RATE}, {@code HTTP_AVG_RESPONSE_TIME}) crossed its threshold;
   * for URI monitors, on {@code uriRegex} or {@code uriPath} (empty otherwise). Values as Rover
   * sent them.
   */
  public record Cause(String type, String uriRegex, String uriPath, double threshold, double current) {}
}
