package io.sextant.core.query.mqe;

import java.util.Set;

/**
 * SkyWalking 10.1's sampled-record metrics (RECORD_LIST results of top_n). Those a source keeps it names itself
 * ({@link MetricKind#SAMPLED_RECORD}); knowing the others lets an expression over one say why it has no answer
 * instead of calling the metric unknown.
 */
final class SampledRecords {
  private static final Set<String> NAMES = Set.of(
      "top_n_database_statement", "top_n_cache_read_command", "top_n_cache_write_command",
      "sampled_slow_trace_record", "sampled_status_4xx_trace_record", "sampled_status_5xx_trace_record");

  private SampledRecords() {
  }

  static boolean isKnown(String metric) {
    return NAMES.contains(metric);
  }
}
