package io.sextant.receiver.ebpf.trace;

import io.grpc.stub.StreamObserver;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.time.Clock;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.logging.v3.LogData;
import org.apache.skywalking.apm.network.logging.v3.LogReportServiceGrpc;

/**
 * {@code skywalking.v3.LogReportService/collect}, served for one client only: SkyWalking Rover, which
 * sends the HTTP requests it sampled during network profiling as logs. They are kept as SkyWalking's
 * sampled-trace records; logs of anyone else are outside Sextant's scope, counted and ignored.
 */
public final class SampledTraceService extends LogReportServiceGrpc.LogReportServiceImplBase {
  private final RecordWriter records;
  private final BlockingCalls calls;
  private final ReceiverMetrics metrics;
  private final SampledTraceParser parser;
  private final SampledTraceConfig config;
  private final Clock clock = Clock.systemUTC();

  public SampledTraceService(RecordWriter records, BlockingCalls calls, ReceiverMetrics metrics, int maxStringLength,
      SampledTraceConfig config) {
    this.records = records;
    this.calls = calls;
    this.metrics = metrics;
    this.parser = new SampledTraceParser(maxStringLength);
    this.config = config;
  }

  @Override
  public StreamObserver<LogData> collect(StreamObserver<Commands> response) {
    return new SampledTraceStream(parser, records, calls, metrics, clock, config.maxSampledTracesPerStream(),
        response);
  }
}
