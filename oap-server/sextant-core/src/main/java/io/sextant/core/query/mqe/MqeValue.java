package io.sextant.core.query.mqe;

/**
 * One value of a result. {@code id} is the bucket as a string for time series, the entity name for sorted lists, the
 * record's name for record lists and null for single values; {@code value} is null when there is no data;
 * {@code traceId} is a sampled record's trace (SkyWalking's {@code traceID}), else null.
 */
public record MqeValue(String id, Double value, String traceId) {
  public MqeValue(String id, Double value) {
    this(id, value, null);
  }
}
