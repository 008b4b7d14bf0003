package io.sextant.api.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One event as SkyWalking's query protocol shows it. {@code type} is {@code Normal} or {@code
 * Error}; {@code layer} a SkyWalking layer name; times are epoch milliseconds, 0 when not reported
 * (an event that has not ended has {@code endTime} 0). Empty strings stand for absent fields.
 */
public record Event(String uuid, String service, String serviceInstance, String endpoint, String name, String type,
    String message, Map<String, String> parameters, long startTime, long endTime, String layer) {
  public Event {
    // Insertion order is kept: parameters come back in the order they were reported.
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  /**
   * This stored event updated by a later report with the same uuid (typically the end of an event
   * whose start was reported before, or the reverse), as SkyWalking merges them: the source, name
   * and layer stay as first reported; a start time is taken only if none was known; a reported end
   * time, type, message and non-empty parameters replace the stored ones.
   */
  public Event mergedWith(Event report) {
    return new Event(uuid, service, serviceInstance, endpoint, name,
        report.type.isEmpty() ? type : report.type,
        report.message.isEmpty() ? message : report.message,
        report.parameters.isEmpty() ? parameters : report.parameters,
        startTime <= 0 && report.startTime > 0 ? report.startTime : startTime,
        report.endTime > 0 ? report.endTime : endTime,
        layer);
  }
}
