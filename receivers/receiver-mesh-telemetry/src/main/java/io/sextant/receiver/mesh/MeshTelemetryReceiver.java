package io.sextant.receiver.mesh;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
public final class MeshTelemetryReceiver extends ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceImplBase {
  private final RecordSink sink;
  private final MeshReceiverLimits limits;
  private final MeshTelemetryValidator validator;
  private final MeterRegistry registry;
  private final Counter messages;
  private final Counter accepted;
  private final ConcurrentHashMap<String, Counter> rejected = new ConcurrentHashMap<>();

  public MeshTelemetryReceiver(RecordSink sink, MeshReceiverLimits limits, MeterRegistry registry) {
    this.sink = sink;
    this.limits = limits;
    this.validator = new MeshTelemetryValidator(limits);
    this.registry = registry;
    this.messages = Counter.builder("sextant_receiver_messages").tag("receiver", "mesh").register(registry);
    this.accepted = Counter.builder("sextant_receiver_records_accepted").tag("receiver", "mesh").register(registry);
  }

  @Override
  public StreamObserver<ServiceMeshMetrics> collect(StreamObserver<MeshProbeDownstream> response) {
    return new StreamObserver<>() {
      private long acceptedHere;
      private long rejectedHere;
      private String firstProblem;
      private boolean done;

      @Override
      public void onNext(ServiceMeshMetrics message) {
        if (done) {
          return;
        }
        messages.increment();
        Rejection messageProblem = checkMessage(message);
        if (messageProblem != null) {
          // Every record of a refused message counts as refused (at least one for an empty one).
          reject(messageProblem, Math.max(1, message.getHttpMetrics().getMetricsCount() + message.getTcpMetrics().getMetricsCount()));
          return;
        }
        long before = acceptedHere;
        try {
          if (message.hasHttpMetrics()) {
            for (HTTPServiceMeshMetric m : message.getHttpMetrics().getMetricsList()) {
              if (!offer(validator.toCall(m))) {
                return;
              }
            }
          } else {
            for (TCPServiceMeshMetric m : message.getTcpMetrics().getMetricsList()) {
              if (!offer(validator.toFlow(m))) {
                return;
              }
            }
          }
        } finally {
          accepted.increment(acceptedHere - before); // once per message, not per record
        }
      }

      /** False if the stream was ended because we are overloaded. */
      private boolean offer(Object validated) {
        if (validated instanceof Rejection r) {
          reject(r, 1);
          return true;
        }
        Admission admission = validated instanceof CallRecord c ? sink.offerCall(c) : sink.offerFlow((FlowRecord) validated);
        switch (admission) {
          case ACCEPTED -> {
            acceptedHere++;
            return true;
          }
          case REJECTED_TIME_RANGE -> {
            reject(new Rejection("time_range", "startTime is outside the accepted window"), 1);
            return true;
          }
          default -> {
            counter("overloaded").increment();
            done = true;
            response.onError(Status.RESOURCE_EXHAUSTED
                .withDescription("aggregation buffers are full; " + acceptedHere
                    + " records of this stream were accepted, retry the rest later")
                .asRuntimeException());
            return false;
          }
        }
      }

      private void reject(Rejection r, int count) {
        rejectedHere += count;
        counter(r.reason()).increment(count);
        if (firstProblem == null) {
          firstProblem = r.reason() + ": " + r.detail();
        }
      }

      @Override
      public void onError(Throwable t) {
        done = true;
      }

      @Override
      public void onCompleted() {
        if (done) {
          return;
        }
        done = true;
        if (rejectedHere > 0) {
          response.onError(Status.INVALID_ARGUMENT
              .withDescription("rejected " + rejectedHere + " of " + (rejectedHere + acceptedHere)
                  + " records; first: " + firstProblem)
              .asRuntimeException());
        } else {
          response.onNext(MeshProbeDownstream.getDefaultInstance());
          response.onCompleted();
        }
      }
    };
  }

  private Rejection checkMessage(ServiceMeshMetrics message) {
    // Message bytes are bounded on the wire (server.maxGrpcMessageBytes); measuring them again
    // here would walk every string of every record.
    List<?> records = message.hasHttpMetrics() ? message.getHttpMetrics().getMetricsList()
        : message.hasTcpMetrics() ? message.getTcpMetrics().getMetricsList() : null;
    if (records == null) {
      return new Rejection("empty_message", "message carries neither httpMetrics nor tcpMetrics");
    }
    if (records.size() > limits.maxRecordsPerMessage()) {
      return new Rejection("too_many_records", records.size() + " records in one message exceed the limit of "
          + limits.maxRecordsPerMessage());
    }
    return null;
  }

  private Counter counter(String reason) {
    return rejected.computeIfAbsent(reason, r -> Counter.builder("sextant_receiver_records_rejected")
        .tag("receiver", "mesh").tag("reason", r).register(registry));
  }
}
