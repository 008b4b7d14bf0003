package io.sextant.core.query.mqe;

/** One entry of a RECORD_LIST (top_n over sampled records): the record's name, its value and its trace id. */
public record RecordValue(String name, double value, String traceId) {
}
