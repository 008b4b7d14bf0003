package io.sextant.receiver.ebpf.trace;

import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.ebpf.EbpfReceiverConfig;
import java.util.List;

/**
 * Bounds of Rover's sampled-trace logs ({@code LogReportService/collect}): a stream keeps at most
 * {@code maxSampledTracesPerStream} samples (Rover opens one stream per service and flush, holding its
 * top-N samples per URI rule, so a few hundred at most); the rest are refused and counted.
 */
public record SampledTraceConfig(int maxSampledTracesPerStream) {
  public static final List<ConfigKey> KEYS = List.of(
      integer(EbpfReceiverConfig.P + "maxSampledTracesPerStream", 10_000, 1, 1_000_000,
          "sampled traces (network profiling's slow/4xx/5xx HTTP requests) one LogReportService stream may carry;"
              + " past it they are refused"));

  public static SampledTraceConfig load(Settings s) {
    return new SampledTraceConfig(s.integer(EbpfReceiverConfig.P + "maxSampledTracesPerStream"));
  }
}
