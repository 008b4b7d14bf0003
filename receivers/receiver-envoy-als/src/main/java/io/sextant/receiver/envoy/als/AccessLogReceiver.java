package io.sextant.receiver.als;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsResponse;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import java.util.Optional;

/**
 * {@code envoy.service.accesslog.v3.AccessLogService/StreamAccessLogs} and its SkyWalking Satellite
 * twin {@code satellite.envoy.accesslog.v3.SatelliteAccessLogService/StreamAccessLogs} (same
 * messages; Satellite repeats the identifier on every message, Envoy sends it first only).
 *
 * <p>Entries that cannot be attributed are counted by reason and the stream goes on; Envoy never
 * reads the response, so the stream is only ended early when the aggregator is full.
 */
public final class AccessLogReceiver {
  public static final String SATELLITE_SERVICE = "satellite.envoy.accesslog.v3.SatelliteAccessLogService";

  private final RecordSink sink;
  private final AccessLogConverter converter;
  private final AlsMetrics metrics;

  public AccessLogReceiver(RecordSink sink, AlsLimits limits, PeerAddressResolver resolver, MeterRegistry registry) {
    this.sink = sink;
    this.metrics = new AlsMetrics(registry);
    EndpointNamer endpoints = new EndpointNamer(limits.endpointRules(), limits.endpointBudgetPerService(),
        limits.maxServices(), metrics.endpointOverflow::increment);
    this.converter = new AccessLogConverter(new ServiceNaming(limits.serviceNameLabels()), endpoints, resolver,
        limits.maxStringLength(), metrics);
  }

  /** Envoy's service. */
  public ServerServiceDefinition envoyService() {
    return ServerServiceDefinition.builder(AccessLogServiceGrpc.SERVICE_NAME)
        .addMethod(AccessLogServiceGrpc.getStreamAccessLogsMethod(),
            ServerCalls.asyncClientStreamingCall(this::stream))
        .build();
  }

  /** The same method under the name SkyWalking Satellite forwards to. */
  public ServerServiceDefinition satelliteService() {
    MethodDescriptor<StreamAccessLogsMessage, StreamAccessLogsResponse> method =
        AccessLogServiceGrpc.getStreamAccessLogsMethod().toBuilder()
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SATELLITE_SERVICE, "StreamAccessLogs"))
            .build();
    return ServerServiceDefinition.builder(SATELLITE_SERVICE)
        .addMethod(method, ServerCalls.asyncClientStreamingCall(this::stream))
        .build();
  }

  private StreamObserver<StreamAccessLogsMessage> stream(StreamObserver<StreamAccessLogsResponse> response) {
    return new StreamObserver<>() {
      private Node node;
      private Optional<ServiceIdentity> self = Optional.empty();
      private boolean gateway;
      private boolean done;

      @Override
      public void onNext(StreamAccessLogsMessage message) {
        if (done) {
          return;
        }
        if (message.hasIdentifier() && !message.getIdentifier().getNode().equals(node)) {
          node = message.getIdentifier().getNode();
          self = converter.self(node);
          gateway = AccessLogConverter.isGateway(node);
        }
        metrics.httpEntries.increment(message.getHttpLogs().getLogEntryCount());
        metrics.tcpEntries.increment(message.getTcpLogs().getLogEntryCount());
        int entries = message.getHttpLogs().getLogEntryCount() + message.getTcpLogs().getLogEntryCount();
        if (self.isEmpty()) {
          // Without knowing who reports, nothing in the message can be attributed.
          metrics.dropped(node == null ? "missing_identifier" : "unknown_node", entries);
          return;
        }
        ServiceIdentity me = self.get();
        for (HTTPAccessLogEntry e : message.getHttpLogs().getLogEntryList()) {
          for (CallRecord r : converter.http(e, me, gateway)) {
            if (!admit(sink.offerCall(r))) {
              return;
            }
          }
        }
        for (TCPAccessLogEntry e : message.getTcpLogs().getLogEntryList()) {
          for (FlowRecord r : converter.tcp(e, me, gateway)) {
            if (!admit(sink.offerFlow(r))) {
              return;
            }
          }
        }
      }

      private boolean admit(Admission admission) {
        switch (admission) {
          case ACCEPTED -> {
            return true;
          }
          case REJECTED_TIME_RANGE -> {
            metrics.dropped("time_range", 1);
            return true;
          }
          default -> {
            metrics.dropped("overloaded", 1);
            done = true;
            response.onError(Status.RESOURCE_EXHAUSTED
                .withDescription("aggregation buffers are full; retry later").asRuntimeException());
            return false;
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        done = true;
      }

      @Override
      public void onCompleted() {
        if (!done) {
          done = true;
          response.onNext(StreamAccessLogsResponse.getDefaultInstance());
          response.onCompleted();
        }
      }
    };
  }

}
