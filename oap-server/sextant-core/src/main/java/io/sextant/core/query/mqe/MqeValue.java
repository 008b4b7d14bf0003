package io.sextant.core.query.mqe;

/**
 * One value of a result. {@code id} is the bucket as a string for time series, the entity name for sorted lists, the
 * record's name for record lists and null for single values; {@code value} is null when there is no data;
 * {@code traceId} is a sampled record's trace (SkyWalking's {@code traceID}), else null; {@code owner} is the entity
 * a sorted list's value belongs to (SkyWalking 10.2's {@code owner}), else null.
 */
public record MqeValue(String id, Double value, String traceId, MqeOwner owner) {
  public MqeValue(String id, Double value) {
    this(id, value, null, null);
  }

  public MqeValue(String id, Double value, String traceId) {
    this(id, value, traceId, null);
  }

  /** The same point (id, trace, owner) with another value: what arithmetic on a result keeps. */
  public MqeValue withValue(Double newValue) {
    return new MqeValue(id, newValue, traceId, owner);
  }
}
