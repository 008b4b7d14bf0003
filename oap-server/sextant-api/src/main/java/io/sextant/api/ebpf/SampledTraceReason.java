package io.sextant.api.ebpf;

import java.util.Locale;

/**
 * Why SkyWalking Rover sampled an HTTP request during network profiling (the {@code reason} of its
 * sampled-trace log), and the SkyWalking record each reason is kept as: one record name per reason,
 * owned by the process relation (client process - server process) the request went over.
 */
public enum SampledTraceReason {
  SLOW("sampled_slow_trace_record"),
  STATUS_4XX("sampled_status_4xx_trace_record"),
  STATUS_5XX("sampled_status_5xx_trace_record");

  private final String recordName;

  SampledTraceReason(String recordName) {
    this.recordName = recordName;
  }

  /** The record name (SkyWalking's index name), which is also the MQE metric name the UI asks for. */
  public String recordName() {
    return recordName;
  }

  /** Rover's spelling ({@code slow}, {@code status_4xx}, {@code status_5xx}, any case); null if none of them. */
  public static SampledTraceReason fromRover(String reason) {
    if (reason == null) {
      return null;
    }
    try {
      return valueOf(reason.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
