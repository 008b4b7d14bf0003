package io.sextant.receiver.envoy.als;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsResponse;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.RecordStream;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;

/**
 * {@code envoy.service.accesslog.v3.AccessLogService/StreamAccessLogs} and its SkyWalking Satellite
 * twin {@code satellite.envoy.accesslog.v3.SatelliteAccessLogService/StreamAccessLogs} (same
 * messages; Satellite repeats the identifier on every message, Envoy sends it first only).
 *
 * <p>Entries that cannot be attributed are counted by reason and the stream goes on; Envoy never
 * reads the response, so a stream always ends OK unless the aggregator is full. The peer resolver,
 * if any, is owned: started and closed with the receiver.
 */
public final class AccessLogReceiver implements Receiver {
  public static final String SATELLITE_SERVICE = "satellite.envoy.accesslog.v3.SatelliteAccessLogService";

  private final RecordSink sink;
  private final AccessLogConverter converter;
  private final PeerAddressResolver resolver;
  private final AlsMetrics metrics;
  private final LogWriter logWriter;
  private final ErrorLogs errorLogs;

  /**
   * {@code records} keeps the failed requests as logs; {@code resolver} may be null: peers are then
   * named only by Istio's metadata exchange.
   */
  public AccessLogReceiver(RecordSink sink, RecordWriter records, AlsConfig config, PeerAddressResolver resolver,
      MeterRegistry registry) {
    this.sink = sink;
    this.resolver = resolver;
    this.metrics = new AlsMetrics(registry);
    AlsConfig.ErrorLogs logs = config.errorLogs();
    this.logWriter = new LogWriter(records, logs.maxPending(), registry);
    // A context without a record store (tests of the receiver alone) keeps no logs.
    boolean stored = records != RecordWriter.NONE;
    this.errorLogs = new ErrorLogs(stored ? logs.perServicePerMinute() : 0,
        stored ? logs.successPerServicePerMinute() : 0, config.maxServices(), logWriter::offer, registry);
    EndpointNamer endpoints = new EndpointNamer(config.endpointRules(), config.endpointBudgetPerService(),
        config.maxServices(), metrics.endpointOverflow::increment);
    // In Kubernetes mode every instance is named <pod>.<namespace>, as SkyWalking's Kubernetes analysis.
    ServiceNaming naming = new ServiceNaming(config.serviceNameLabels(), resolver != null);
    this.converter = new AccessLogConverter(naming, endpoints, resolver, config.maxStringLength(), metrics);
  }

  @Override
  public String name() {
    return AlsMetrics.RECEIVER;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    return List.of(envoyService(), satelliteService());
  }

  @Override
  public void start() {
    logWriter.start();
    if (resolver != null) {
      resolver.start();
    }
  }

  @Override
  public void close() {
    if (resolver != null) {
      resolver.close();
    }
    logWriter.close();
  }

  /** Envoy's service. */
  public ServerServiceDefinition envoyService() {
    return ServerServiceDefinition.builder(AccessLogServiceGrpc.SERVICE_NAME)
        .addMethod(AccessLogServiceGrpc.getStreamAccessLogsMethod(),
            ServerCalls.asyncClientStreamingCall(Stream::new))
        .build();
  }

  /** The same method under the name SkyWalking Satellite forwards to. */
  public ServerServiceDefinition satelliteService() {
    MethodDescriptor<StreamAccessLogsMessage, StreamAccessLogsResponse> method =
        AccessLogServiceGrpc.getStreamAccessLogsMethod().toBuilder()
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SATELLITE_SERVICE, "StreamAccessLogs"))
            .build();
    return ServerServiceDefinition.builder(SATELLITE_SERVICE)
        .addMethod(method, ServerCalls.asyncClientStreamingCall(Stream::new))
        .build();
  }

  /** One proxy's stream. Drops are counted through {@link AlsMetrics}, which feeds the common counters too. */
  private final class Stream extends RecordStream<StreamAccessLogsMessage, StreamAccessLogsResponse> {
    private Node node;
    private Proxy proxy;

    Stream(StreamObserver<StreamAccessLogsResponse> response) {
      super(sink, metrics.common, Completion.ALWAYS_OK, response, StreamAccessLogsResponse.getDefaultInstance());
    }

    @Override
    protected long recordsIn(StreamAccessLogsMessage message) {
      return message.getHttpLogs().getLogEntryCount() + message.getTcpLogs().getLogEntryCount();
    }

    @Override
    protected void handle(StreamAccessLogsMessage message) {
      if (message.hasIdentifier() && !message.getIdentifier().getNode().equals(node)) {
        node = message.getIdentifier().getNode();
        proxy = new Proxy(node.getId(), converter.self(node).orElse(null), Proxy.Role.of(node));
      }
      metrics.httpEntries.increment(message.getHttpLogs().getLogEntryCount());
      metrics.tcpEntries.increment(message.getTcpLogs().getLogEntryCount());
      int entries = message.getHttpLogs().getLogEntryCount() + message.getTcpLogs().getLogEntryCount();
      if (proxy == null) {
        converter.dropped("missing_identifier", entries, "");
        return;
      }
      if (proxy.self() == null && !converter.resolvesByAddress()) {
        // Without knowing who reports, nothing in the message can be attributed.
        converter.dropped("unknown_node", entries, proxy.nodeId());
        return;
      }
      for (HTTPAccessLogEntry e : message.getHttpLogs().getLogEntryList()) {
        List<CallRecord> calls = converter.http(e, proxy);
        for (CallRecord r : calls) {
          if (!offer(r)) {
            return;
          }
        }
        errorLogs.http(e, calls, proxy.nodeId());
      }
      for (TCPAccessLogEntry e : message.getTcpLogs().getLogEntryList()) {
        List<FlowRecord> flows = converter.tcp(e, proxy);
        for (FlowRecord r : flows) {
          if (!offer(r)) {
            return;
          }
        }
        errorLogs.tcp(e, flows, proxy.nodeId());
      }
    }

    @Override
    protected void admitted(Admission admission) {
      switch (admission) {
        case REJECTED_TIME_RANGE -> metrics.droppedOnly("time_range", 1);
        case REJECTED_OVERLOADED -> metrics.droppedOnly("overloaded", 1);
        case REJECTED_NEW_ENTITIES -> metrics.droppedOnly("new_entities", 1);
        default -> { }
      }
    }
  }
}
