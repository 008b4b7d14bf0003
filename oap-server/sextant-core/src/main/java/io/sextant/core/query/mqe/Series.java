package io.sextant.core.query.mqe;

import java.util.List;

/** One series read from storage; values aligned with the requested buckets, null = no data. */
public record Series(List<KeyValue> labels, Double[] values) {
}
