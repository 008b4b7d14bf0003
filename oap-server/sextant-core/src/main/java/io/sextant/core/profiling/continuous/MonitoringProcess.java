package io.sextant.core.profiling.continuous;

import java.util.List;

/** {@code ContinuousProfilingMonitoringProcess}: a process Rover watches and its recent triggers. */
public record MonitoringProcess(String id, String name, String detectType, List<String> labels,
    int triggeredCount, Long lastTriggerTimestamp) {}
