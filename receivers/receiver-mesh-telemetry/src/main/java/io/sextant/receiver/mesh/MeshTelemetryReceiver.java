package io.sextant.receiver.mesh;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordSink;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.RecordStream;
import java.util.List;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;

/**
 * {@code skywalking.v3.ServiceMeshMetricService/collect}: a client stream of telemetry batches.
 *
 * <p>Each record is validated on its own: a bad one is counted by reason and skipped, the rest of
 * the stream goes on, and the stream ends with {@code INVALID_ARGUMENT} saying how many were
 * rejected and why. When the aggregator is full the stream ends at once with {@code
 * RESOURCE_EXHAUSTED}; everything accepted before stays accepted.
 */
public final class MeshTelemetryReceiver implements Receiver {
  static final String NAME = "mesh";

  private final RecordSink sink;
  private final MeshReceiverConfig config;
  private final MeshTelemetryValidator validator;
  private final ReceiverMetrics metrics;

  public MeshTelemetryReceiver(RecordSink sink, MeshReceiverConfig config, MeterRegistry registry) {
    this.sink = sink;
    this.config = config;
    this.validator = new MeshTelemetryValidator(config);
    this.metrics = ReceiverMetrics.forReceiver(NAME, registry);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    return List.of(new ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceImplBase() {
      @Override
      public StreamObserver<ServiceMeshMetrics> collect(StreamObserver<MeshProbeDownstream> response) {
        return new Stream(response);
      }
    }.bindService());
  }

  private final class Stream extends RecordStream<ServiceMeshMetrics, MeshProbeDownstream> {
    Stream(StreamObserver<MeshProbeDownstream> response) {
      super(sink, metrics, Completion.REPORT_REJECTIONS, response, MeshProbeDownstream.getDefaultInstance());
    }

    @Override
    protected void handle(ServiceMeshMetrics message) {
      Rejection messageProblem = checkMessage(message);
      if (messageProblem != null) {
        // Every record of a refused message counts as refused (at least one for an empty one).
        int records = message.getHttpMetrics().getMetricsCount() + message.getTcpMetrics().getMetricsCount();
        reject(messageProblem.reason(), messageProblem.detail(), Math.max(1, records));
        return;
      }
      if (message.hasHttpMetrics()) {
        for (HTTPServiceMeshMetric m : message.getHttpMetrics().getMetricsList()) {
          Object validated = validator.toCall(m);
          if (validated instanceof Rejection r) {
            reject(r.reason(), r.detail(), 1);
          } else if (!offerCall((CallRecord) validated)) {
            return;
          }
        }
      } else {
        for (TCPServiceMeshMetric m : message.getTcpMetrics().getMetricsList()) {
          Object validated = validator.toFlow(m);
          if (validated instanceof Rejection r) {
            reject(r.reason(), r.detail(), 1);
          } else if (!offerFlow((FlowRecord) validated)) {
            return;
          }
        }
      }
    }
  }

  private Rejection checkMessage(ServiceMeshMetrics message) {
    // Message bytes are bounded on the wire (server.maxGrpcMessageBytes); measuring them again
    // here would walk every string of every record.
    List<?> records = message.hasHttpMetrics() ? message.getHttpMetrics().getMetricsList()
        : message.hasTcpMetrics() ? message.getTcpMetrics().getMetricsList() : null;
    if (records == null) {
      return new Rejection("empty_message", "message carries neither httpMetrics nor tcpMetrics");
    }
    if (records.size() > config.maxRecordsPerMessage()) {
      return new Rejection("too_many_records", records.size() + " records in one message exceed the limit of "
          + config.maxRecordsPerMessage());
    }
    return null;
  }
}
