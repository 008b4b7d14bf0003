package io.sextant.core.query;

/**
 * One sampled record as the query protocol shows it: a literal name, its id, its value (usually an
 * integer, e.g. a latency) and the trace it came from, if any.
 */
public record SampledRecord(String name, String id, String value, String refId) {}
