package io.sextant.core.profiling.continuous;

import java.util.List;
import java.util.Map;

/** {@code ContinuousProfilingMonitoringInstance}: an instance with watched processes, and its triggers. */
public record MonitoringInstance(String id, String name, Map<String, String> attributes, int triggeredCount,
    Long lastTriggerTimestamp, List<MonitoringProcess> processes) {}
