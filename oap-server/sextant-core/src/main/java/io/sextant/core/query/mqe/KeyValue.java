package io.sextant.core.query.mqe;

/** One label of a series, e.g. {@code p=50}. */
public record KeyValue(String key, String value) {
}
