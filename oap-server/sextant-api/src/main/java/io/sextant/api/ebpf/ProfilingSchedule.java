package io.sextant.api.ebpf;

/**
 * One run of a profiling task on one process, as Rover reports it in {@code collectProfilingData}:
 * from {@code startTime} (when Rover started profiling the process) to {@code endTime} (the report
 * time of the latest upload), epoch ms. {@code scheduleId} is SkyWalking's: see {@link
 * ProfilingSchedules#scheduleId}.
 */
public record ProfilingSchedule(String scheduleId, String taskId, String processId, long startTime, long endTime) {}
