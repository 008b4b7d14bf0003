package io.sextant.receiver.ebpf.accesslog;

import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.accept;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.close;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connect;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connection;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.http;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.ip;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.node;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.pod;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.read;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.send;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.KernelField;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Observation;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.ebpf.EbpfReceiverFactory;
import io.sextant.testkit.receiver.RecordingSink;
import io.sextant.testkit.receiver.ServedReceiver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolType;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ConnectionAttachment;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ZTunnelAttachmentEnvironment;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ZTunnelAttachmentSecurityPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rover's access log over real gRPC, in streams shaped as Rover 0.7 sends them, into a recording
 * sink: who each record is attributed to, and what is refused or dropped and how it is counted.
 */
class AccessLogServiceTest {
  private static final long BOOT = System.currentTimeMillis() / 1000 - 3600;
  /** An hour after boot, in nanoseconds: now. */
  private static final long T = 3_600_000_000_000L;
  private static final org.apache.skywalking.apm.network.common.v3.DetectPoint SERVER =
      org.apache.skywalking.apm.network.common.v3.DetectPoint.server;
  private static final org.apache.skywalking.apm.network.common.v3.DetectPoint CLIENT =
      org.apache.skywalking.apm.network.common.v3.DetectPoint.client;

  private final ServedReceiver served = new ServedReceiver(new EbpfReceiverFactory(), Map.of());
  private final EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub stub =
      GrpcClients.builder(served.uri()).build(EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub.class);

  @AfterEach
  void stop() {
    served.close();
  }

  @AfterAll
  static void awaitStopped() {
    ServedReceiver.awaitAllStopped();
  }

  @Test
  void aServerSideExchangeIsAttributedToTheWatchedPodAndItsCaller() throws Exception {
    AccessLogConnection details = connection(pod("details.default", "details-1", 9080),
        pod("productpage.default", "productpage-1", 40000), SERVER, AccessLogProtocolType.HTTP_1, false);
    Status status = send(stub, List.of(
        EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, "")).setConnection(details)
            .addKernelLogs(accept(T, T + 50_000)).build(),
        EBPFAccessLogMessage.newBuilder().addKernelLogs(read(T + 100_000, T + 130_000, 300, 1))
            .addKernelLogs(write(T + 2_000_000, T + 2_080_000, 1200, 2, 1))
            .setProtocolLog(http(AccessLogHTTPProtocolRequestMethod.Get, "/details/0", 200, T + 100_000,
                T + 7_100_000))
            .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    List<KernelRecord> records = kernelRecords(served.sink);
    assertThat(records).extracting(KernelRecord::operation, KernelRecord::detectPoint, KernelRecord::localService,
        KernelRecord::localInstance, KernelRecord::remoteService, KernelRecord::remoteInstance)
        .containsExactly(
            tuple(KernelOperation.ACCEPT, DetectPoint.SERVER, "details.default", "details-1", "productpage.default",
                "productpage-1"),
            tuple(KernelOperation.READ, DetectPoint.SERVER, "details.default", "details-1", "productpage.default",
                "productpage-1"),
            tuple(KernelOperation.WRITE, DetectPoint.SERVER, "details.default", "details-1", "productpage.default",
                "productpage-1"),
            tuple(KernelOperation.HTTP, DetectPoint.SERVER, "details.default", "details-1", "productpage.default",
                "productpage-1"));
    KernelRecord exchange = records.get(3);
    assertThat(exchange.endpoint()).isEqualTo("GET:/details/0");
    assertThat(exchange.value(KernelField.LATENCY)).isEqualTo(7);
    assertThat(exchange.statusCode()).isEqualTo(200);
    assertThat(exchange.success()).isTrue();
    assertThat(exchange.protocol()).isEqualTo(CallProtocol.HTTP);
    assertThat(exchange.layer()).isEqualTo(Layer.K8S_SERVICE);
    assertThat(exchange.startTimeMillis()).isEqualTo(BOOT * 1000 + 3_600_000);
    assertThat(exchange.sourceService()).isEqualTo("productpage.default");
    assertThat(exchange.destService()).isEqualTo("details.default");
    KernelRecord written = records.get(2);
    assertThat(written.value(KernelField.DURATION)).isEqualTo(80_000);
    assertThat(written.value(KernelField.PACKAGE_SIZE)).isEqualTo(1200);
    assertThat(written.value(KernelField.PACKAGES)).isEqualTo(2);
    assertThat(written.value(KernelField.RETRANSMITS)).isEqualTo(1);
    assertThat(records.get(1).value(KernelField.PACKAGE_SIZE)).isEqualTo(300);
    assertThat(records.get(1).value(KernelField.L3_RCV_DURATION)).isEqualTo(700);
  }

  @Test
  void messagesWithoutAConnectionContinueTheLastOneAndANewOneSwitches() throws Exception {
    Status status = send(stub, List.of(
        EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, ""))
            .setConnection(connection(pod("reviews.default", "reviews-1", 40000), pod("ratings.default",
                "ratings-1", 9080), CLIENT, AccessLogProtocolType.HTTP_1, false))
            .addKernelLogs(connect(T, T + 90_000, true)).build(),
        EBPFAccessLogMessage.newBuilder()
            .setProtocolLog(http(AccessLogHTTPProtocolRequestMethod.Get, "/ratings/0", 503, T, T + 3_000_000))
            .build(),
        EBPFAccessLogMessage.newBuilder()
            .setConnection(connection(pod("reviews.default", "reviews-1", 40001), pod("details.default",
                "details-1", 9080), CLIENT, AccessLogProtocolType.TCP, true))
            .addKernelLogs(close(T + 5_000, T + 6_000, true)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(kernelRecords(served.sink)).extracting(KernelRecord::operation, KernelRecord::remoteService,
        KernelRecord::endpoint, KernelRecord::success, KernelRecord::protocol, KernelRecord::tlsMode)
        .containsExactly(
            tuple(KernelOperation.CONNECT, "ratings.default", "", true, CallProtocol.HTTP, ""),
            // The client side names no endpoint: SkyWalking keeps endpoints on the server side only.
            tuple(KernelOperation.HTTP, "ratings.default", "", false, CallProtocol.HTTP, ""),
            tuple(KernelOperation.CLOSE, "details.default", "", true, CallProtocol.TCP, "TLS"));
  }

  @Test
  void aPeerKnownOnlyByIpIsUnknownWithoutAResolverAndNamedWithOne() throws Exception {
    List<EBPFAccessLogMessage> stream = List.of(EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, "prod"))
        .setConnection(connection(pod("reviews.default", "reviews-1", 40000), ip("10.0.0.7", 9080), CLIENT,
            AccessLogProtocolType.TCP, false))
        .addKernelLogs(connect(T, T + 90_000, false)).build());

    assertThat(send(stub, stream).getCode()).isEqualTo(Status.Code.OK);
    assertThat(kernelRecords(served.sink)).extracting(KernelRecord::remoteService, KernelRecord::remoteInstance)
        .containsExactly(tuple(KernelRecord.UNKNOWN, KernelRecord.UNKNOWN));

    RecordingSink sink = new RecordingSink();
    PeerAddressResolver byIp = ip -> Optional.of(new ServiceIdentity("ratings.default", "ratings-7.default",
        Map.of("pod", "ratings-7")));
    AccessLogService withResolver = new AccessLogService(sink,
        ReceiverMetrics.forReceiver("test", new SimpleMeterRegistry()),
        new EndpointNamer("", 10, 10, () -> { }), byIp, 1024);
    try (RoverAccessLog.Served server = new RoverAccessLog.Served(withResolver.service())) {
      assertThat(send(server.client(), stream).getCode()).isEqualTo(Status.Code.OK);
    }
    // The cluster Rover reports comes first, as SkyWalking names peers found through its registry.
    assertThat(kernelRecords(sink)).extracting(KernelRecord::remoteService, KernelRecord::remoteInstance)
        .containsExactly(tuple("prod::ratings.default", "ratings-7"));
  }

  @Test
  void behindZtunnelTheOutboundPeerIsTheRealDestination() throws Exception {
    RecordingSink sink = new RecordingSink();
    PeerAddressResolver byIp = ip -> ip.equals("10.0.0.9")
        ? Optional.of(new ServiceIdentity("ratings.default", "x", Map.of("pod", "ratings-1")))
        : Optional.empty();
    AccessLogService service = new AccessLogService(sink,
        ReceiverMetrics.forReceiver("test", new SimpleMeterRegistry()),
        new EndpointNamer("", 10, 10, () -> { }), byIp, 1024);
    AccessLogConnection viaZtunnel = connection(pod("reviews.default", "reviews-1", 40000), ip("10.0.0.1", 15001),
        CLIENT, AccessLogProtocolType.TCP, false).toBuilder()
        .setAttachment(ConnectionAttachment.newBuilder().setZTunnel(ZTunnelAttachmentEnvironment.newBuilder()
            .setRealDestinationIp("10.0.0.9")))
        .build();
    try (RoverAccessLog.Served server = new RoverAccessLog.Served(service.service())) {
      assertThat(send(server.client(), List.of(EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, ""))
          .setConnection(viaZtunnel).addKernelLogs(connect(T, T + 1000, true)).build())).getCode())
          .isEqualTo(Status.Code.OK);
    }
    assertThat(kernelRecords(sink)).extracting(KernelRecord::remoteService).containsExactly("ratings.default");
  }

  @Test
  void behindZtunnelHttpAndBytesAreAlsoMeshCallsAndFlowsNotCountedTwice() throws Exception {
    AccessLogConnection ambient = connection(pod("details.default", "details-1", 9080),
        pod("productpage.default", "productpage-1", 40000), SERVER, AccessLogProtocolType.HTTP_1, false)
        .toBuilder().setAttachment(ConnectionAttachment.newBuilder().setZTunnel(
            ZTunnelAttachmentEnvironment.newBuilder().setSecurityPolicy(ZTunnelAttachmentSecurityPolicy.MTLS)))
        .build();
    Status status = send(stub, List.of(EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, ""))
        .setConnection(ambient).addKernelLogs(accept(T, T + 1000))
        .addKernelLogs(write(T + 2_000_000, T + 2_080_000, 1200, 2, 0))
        .setProtocolLog(http(AccessLogHTTPProtocolRequestMethod.Get, "/details/0", 200, T, T + 7_000_000)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    List<Observation> accepted = served.sink.accepted();
    assertThat(accepted).filteredOn(KernelRecord.class::isInstance).hasSize(3);
    assertThat(accepted).filteredOn(FlowRecord.class::isInstance).singleElement().satisfies(o -> {
      FlowRecord f = (FlowRecord) o;
      assertThat(f.layer()).isEqualTo(Layer.MESH);
      assertThat(f.sourceService()).isEqualTo("productpage.default");
      assertThat(f.destService()).isEqualTo("details.default");
      assertThat(f.sentBytes()).isEqualTo(1200);
      assertThat(f.tlsMode()).isEqualTo("mTLS");
    });
    assertThat(accepted).filteredOn(CallRecord.class::isInstance).singleElement().satisfies(o -> {
      CallRecord c = (CallRecord) o;
      assertThat(c.layer()).isEqualTo(Layer.MESH);
      assertThat(c.detectPoint()).isEqualTo(DetectPoint.SERVER);
      assertThat(c.endpoint()).isEqualTo("GET:/details/0");
      assertThat(c.latencyMillis()).isEqualTo(7);
      assertThat(c.tlsMode()).isEqualTo("mTLS");
    });
    // The client sent three records; the mesh's views are not counted again.
    assertThat(served.registry.find(ReceiverMetrics.RECORDS_ACCEPTED).tag("receiver", "ebpf_access_log").counter()
        .count()).isEqualTo(3);
  }

  @Test
  void trafficOfAServiceWithItselfIsDroppedAndCountedWithoutFailingTheStream() throws Exception {
    Status status = send(stub, List.of(EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, ""))
        .setConnection(connection(pod("reviews.default", "reviews-1", 40000), pod("reviews.default", "reviews-2",
            9080), CLIENT, AccessLogProtocolType.TCP, false))
        .addKernelLogs(connect(T, T + 1000, true)).addKernelLogs(close(T + 2000, T + 3000, true)).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(served.sink.accepted()).isEmpty();
    assertThat(rejected("same_service")).isEqualTo(2);
  }

  @Test
  void recordsThatCannotBeAttributedAreRefusedByReasonAndNamedInTheAnswer() throws Exception {
    Status noNode = send(stub, List.of(EBPFAccessLogMessage.newBuilder()
        .setConnection(connection(pod("a.default", "a-1", 1), pod("b.default", "b-1", 2), CLIENT,
            AccessLogProtocolType.TCP, false))
        .addKernelLogs(connect(T, T + 1000, true)).build()));
    Status noConnection = send(stub, List.of(EBPFAccessLogMessage.newBuilder().setNode(node(BOOT, ""))
        .addKernelLogs(connect(T, T + 1000, true)).addKernelLogs(close(T, T + 1000, true)).build()));

    assertThat(noNode.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(noNode.getDescription()).contains("no_node");
    assertThat(noConnection.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(noConnection.getDescription()).contains("no_connection");
    assertThat(rejected("no_node")).isEqualTo(1);
    assertThat(rejected("no_connection")).isEqualTo(2);
    assertThat(served.sink.accepted()).isEmpty();
  }

  private double rejected(String reason) {
    var counter = served.registry.find(ReceiverMetrics.RECORDS_REJECTED).tag("receiver", "ebpf_access_log")
        .tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  private static List<KernelRecord> kernelRecords(RecordingSink sink) {
    return sink.accepted().stream().filter(KernelRecord.class::isInstance).map(KernelRecord.class::cast).toList();
  }
}
