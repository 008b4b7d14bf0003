package io.sextant.core.query.mqe;

/**
 * One value of a result. {@code id} is the bucket as a string for time series, the entity name for sorted lists and
 * null for single values; {@code value} is null when there is no data.
 */
public record MqeValue(String id, Double value) {
}
