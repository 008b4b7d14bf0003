package io.sextant.receiver.mesh;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordSink;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.RecordStream;
import io.sextant.receiver.common.Rejection;
import java.util.List;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;

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
  private final NameTable names;

  public MeshTelemetryReceiver(RecordSink sink, MeshReceiverConfig config, MeterRegistry registry) {
    this.sink = sink;
    this.config = config;
    this.names = new NameTable(config.maxCachedNames());
    this.validator = new MeshTelemetryValidator(config);
    this.metrics = ReceiverMetrics.forReceiver(NAME, registry);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    // SkyWalking's method, with the request handed over as bytes (see RawMessageMarshaller).
    MethodDescriptor<byte[], MeshProbeDownstream> collect = ServiceMeshMetricServiceGrpc.getCollectMethod()
        .toBuilder(new RawMessageMarshaller(), ProtoUtils.marshaller(MeshProbeDownstream.getDefaultInstance()))
        .build();
    return List.of(ServerServiceDefinition.builder(ServiceMeshMetricServiceGrpc.SERVICE_NAME)
        .addMethod(collect, ServerCalls.asyncClientStreamingCall(Stream::new))
        .build());
  }

  private final class Stream extends RecordStream<byte[], MeshProbeDownstream> {
    private final MessageLayout layout = new MessageLayout();
    private final WireMetric metric = new WireMetric(names, config.maxStringLength());

    Stream(StreamObserver<MeshProbeDownstream> response) {
      super(sink, metrics, Completion.REPORT_REJECTIONS, response, MeshProbeDownstream.getDefaultInstance());
    }

    @Override
    protected long recordsIn(byte[] message) {
      try {
        layout.read(message); // the same message again when a refusal ends handle(): the layout is unchanged
        return layout.count;
      } catch (WireReader.Malformed e) {
        return 1;
      }
    }

    @Override
    protected void handle(byte[] message) {
      try {
        layout.read(message);
      } catch (WireReader.Malformed e) {
        reject("malformed_message", "not a ServiceMeshMetrics message: " + e.getMessage(), 1);
        return;
      }
      Rejection messageProblem = checkMessage(layout);
      if (messageProblem != null) {
        // Every record of a refused message counts as refused (at least one for an empty one).
        reject(messageProblem.reason(), messageProblem.detail(), Math.max(1, layout.count));
        return;
      }
      boolean http = layout.kind == MessageLayout.Kind.HTTP;
      for (int i = 0; i < layout.count; i++) {
        int length = layout.records[i * 2 + 1];
        WireReader in = new WireReader(message, layout.records[i * 2], length);
        Object validated;
        try {
          if (http) {
            metric.readHttp(in, length);
            validated = validator.toCall(metric);
          } else {
            metric.readTcp(in, length);
            validated = validator.toFlow(metric);
          }
        } catch (WireReader.Malformed e) {
          validated = new Rejection("malformed_record", e.getMessage());
        }
        if (validated instanceof Rejection r) {
          reject(r.reason(), r.detail(), 1);
        } else if (!(http ? offer((CallRecord) validated) : offer((FlowRecord) validated))) {
          return;
        }
      }
    }
  }

  private Rejection checkMessage(MessageLayout message) {
    // Message bytes are bounded on the wire (server.maxGrpcMessageBytes).
    if (message.kind == MessageLayout.Kind.NONE) {
      return new Rejection("empty_message", "message carries neither httpMetrics nor tcpMetrics");
    }
    if (message.count > config.maxRecordsPerMessage()) {
      return new Rejection("too_many_records", message.count + " records in one message exceed the limit of "
          + config.maxRecordsPerMessage());
    }
    return null;
  }
}
