package io.sextant.api.storage;

/**
 * Processes matching every non-null filter: of a service, of an instance, reported by a Rover agent;
 * alive at some minute of {@code [startMinute, endMinute]} (first seen at or before the end, last
 * ping at or after the start; {@code 0} and {@code Long.MAX_VALUE} for any); at most {@code limit},
 * in no particular order.
 */
public record ProcessQuery(
    String serviceId, String instanceId, String agentId, long startMinute, long endMinute, int limit) {
  public ProcessQuery {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
  }
}
