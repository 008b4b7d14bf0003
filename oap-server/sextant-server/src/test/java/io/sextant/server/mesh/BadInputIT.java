package io.sextant.server.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.server.testing.RawGrpc;
import io.sextant.server.testing.RawHttp2;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.language.agent.v3.SpanAttachedEvent;
import org.apache.skywalking.apm.network.language.agent.v3.SpanAttachedEventReportServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Malformed and oversized input is refused with a clear status and counted in /metrics, while the
 * valid records around it are counted exactly.
 */
class BadInputIT {
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of("receiver.mesh.maxRecordsPerMessage",
      "50", "receiver.mesh.maxStringLength", "64",
        "server.maxGrpcMessageBytes", "65536"));

  private static TestServer sextant() {
    return SEXTANT.server();
  }
  private final long time = System.currentTimeMillis();

  private HTTPServiceMeshMetric.Builder valid() {
    return HTTPServiceMeshMetric.newBuilder().setStartTime(time).setEndTime(time + 10)
        .setSourceServiceName("client").setSourceServiceInstance("client-0")
        .setDestServiceName("server").setDestServiceInstance("server-0").setEndpoint("GET:/")
        .setLatency(10).setResponseCode(200).setStatus(true).setDetectPoint(DetectPoint.server);
  }

  private static ServiceMeshMetrics message(HTTPServiceMeshMetric... records) {
    return ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder()
        .addAllMetrics(List.of(records))).build();
  }

  private double cpm() {
    TimeBuckets b = new TimeBuckets(ZoneId.of("UTC"), java.time.Clock.systemUTC());
    long minute = b.minuteBucket(time);
    var series = sextant().server.query().metrics().read("service_cpm", Map.of(),
        new MqeEntity("server", true, null, null, null, null, null, null, null, null), List.of(minute), Step.MINUTE);
    Double v = series.get(0).values()[0];
    return v == null ? 0 : v;
  }

  private static double peerErrors() throws Exception {
    for (String line : sextant().get("/metrics").split("\n")) {
      if (line.startsWith("sextant_peer_protocol_errors_total ")) {
        return Double.parseDouble(line.substring(line.indexOf(' ') + 1));
      }
    }
    throw new AssertionError("sextant_peer_protocol_errors_total missing from /metrics");
  }

  /** Peers that break HTTP/2 are counted and cannot flood the log: one WARN a minute at most. */
  @Test
  void garbageAfterTheHttp2PrefaceIsCountedAndLoggedAtMostOnceAMinute() throws Exception {
    Logger handler = (Logger) LoggerFactory.getLogger(
        "com.linecorp.armeria.internal.common.AbstractHttp2ConnectionHandler");
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    handler.addAppender(logged);
    try {
      double before = peerErrors();
      for (int i = 0; i < 20; i++) {
        try (Socket socket = new Socket("127.0.0.1", sextant().grpcPort)) {
          OutputStream out = socket.getOutputStream();
          out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.write(new byte[] {0, 0, 3, 9, 0, 0, 0, 0, 7, 1, 2, 3}); // a CONTINUATION out of nowhere
          out.flush();
          socket.setSoTimeout(2000);
          socket.getInputStream().readAllBytes(); // the server's GOAWAY, then it closes
        }
      }
      Poll.until("20 peer protocol errors counted", Duration.ofSeconds(5), () -> peerErrors() - before >= 20);
      assertThat(logged.list).as("WARNs logged for 20 broken connections").hasSizeLessThanOrEqualTo(1);
    } finally {
      handler.detachAppender(logged);
    }
  }

  @Test
  void malformedRecordsAreRejectedByReasonAndTheStreamGoesOn() throws Exception {
    List<ServiceMeshMetrics> messages = new ArrayList<>();
    messages.add(message(valid().build(), valid().build()));
    messages.add(message(valid().setDestServiceName("").build()));                 // no destination
    messages.add(message(valid().setEndpoint("x".repeat(65)).build()));             // name too long
    messages.add(message(valid().setLatency(-5).build()));                          // absurd latency
    messages.add(message(valid().setDetectPointValue(7).build()));                  // unknown enum value
    messages.add(ServiceMeshMetrics.getDefaultInstance());                          // empty message
    List<HTTPServiceMeshMetric> many = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      many.add(valid().build());
    }
    messages.add(message(many.toArray(new HTTPServiceMeshMetric[0])));              // over 50 records
    messages.add(message(valid().build()));

    Status status = sextant().stream(messages);

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo(
        "rejected 105 of 108 records; first: missing_dest_service: destServiceName is required");
    sextant().flush();
    assertThat(cpm()).isEqualTo(3);
    String metrics = sextant().get("/metrics");
    for (String reason : List.of("missing_dest_service", "string_too_long", "bad_latency", "bad_detect_point",
        "empty_message")) {
      assertThat(metrics)
          .contains("sextant_receiver_records_rejected_total{reason=\"" + reason + "\",receiver=\"mesh\"} 1.0");
    }
    assertThat(metrics)
        .contains("sextant_receiver_records_rejected_total{reason=\"too_many_records\",receiver=\"mesh\"} 100.0");
    assertThat(metrics).contains("sextant_receiver_records_accepted_total{receiver=\"mesh\"} 3.0");
  }

  @Test
  void aMessageOverTheWireLimitEndsTheStreamButKeepsWhatWasAccepted() throws Exception {
    List<HTTPServiceMeshMetric> huge = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      huge.add(valid().build());
    }
    Status status = sextant().stream(List.of(message(valid().build()),
        message(huge.toArray(new HTTPServiceMeshMetric[0]))));
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    // The stream's count completes just after the client sees the status.
    Poll.until("the refused stream counted", Duration.ofSeconds(5), () -> sextant().get("/metrics").contains(
        "sextant_grpc_streams_total{method=\"skywalking.v3.ServiceMeshMetricService/collect\","
            + "status=\"RESOURCE_EXHAUSTED\"} 1.0"));
    sextant().flush();
    assertThat(cpm()).isEqualTo(1);
    // The collector is still healthy and takes the next stream.
    assertThat(sextant().stream(List.of(message(valid().build()))).getCode()).isEqualTo(Status.Code.OK);
    sextant().flush();
    assertThat(cpm()).isEqualTo(2);
  }

  @Test
  void aRequestCutOffInsideAMessageIsRefusedAndWhatCameWholeIsKept() throws Exception {
    byte[] whole = message(valid().build()).toByteArray();
    byte[] next = message(valid().build(), valid().build()).toByteArray();
    // The control: the same raw request with nothing cut is answered OK.
    assertThat(rawCall(frame(whole, whole.length))).containsEntry("grpc-status", "0");
    // The second message declares its full length but only 7 of its bytes arrive before the end.
    Map<String, String> cut = rawCall(frame(whole, whole.length), frame(next, 7));
    assertThat(cut).containsEntry("grpc-status", "3");
    assertThat(cut.get("grpc-message")).isEqualTo("truncated gRPC message: the request ended after 7 of the "
        + next.length + " bytes its last message declares");
    assertThat(rawCall(frame(whole, whole.length), new byte[] {0, 0, 0})).containsEntry("grpc-status", "3");
    sextant().flush();
    assertThat(cpm()).isEqualTo(3);
    assertThat(sextant().get("/metrics")).contains("sextant_grpc_truncated_messages_total{method="
        + "\"skywalking.v3.ServiceMeshMetricService/collect\"} 2.0");
  }

  /** A gRPC message as it goes on the wire: uncompressed flag, declared length, then {@code sent} bytes. */
  private static byte[] frame(byte[] body, int sent) {
    return java.nio.ByteBuffer.allocate(5 + sent).put((byte) 0).putInt(body.length).put(body, 0, sent).array();
  }

  /** One mesh-telemetry call over h2c with exactly these bytes as its body; its gRPC status and message. */
  private static Map<String, String> rawCall(byte[]... parts) {
    var out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return RawGrpc.call(sextant().grpcPort, "skywalking.v3.ServiceMeshMetricService/collect", Map.of(),
        out.toByteArray());
  }

  @Test
  void aLongLivedStreamCarriesFarMoreThanOneRequestsWorth() throws Exception {
    // 20,000 single-record messages (several MB) on one stream, as a sidecar sends over hours.
    List<ServiceMeshMetrics> messages = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      messages.add(message(valid().build()));
    }
    assertThat(sextant().stream(messages).getCode()).isEqualTo(Status.Code.OK);
    sextant().flush();
    assertThat(cpm()).isEqualTo(20_000);
  }

  @Test
  void recordsOutsideTheTimeWindowAreRefused() throws Exception {
    Status status = sextant().stream(List.of(message(valid().setStartTime(time - 3L * 86_400_000).build(),
        valid().build())));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("time_range");
    sextant().flush();
    assertThat(cpm()).isEqualTo(1);
  }

  /**
   * As grpc-go (Satellite, Rover) reads an answer: a gRPC status in a HEADERS frame counts only if
   * that frame ends the stream (a trailers-only answer); a stream ending in a DATA frame after it is
   * "server closed the stream without sending trailers", {@code Internal}. Sent as grpc-go sends a
   * call: h2c, {@code te: trailers}, a framed message.
   */
  @Test
  void grpcGoClientsReadEachRefusalAsATrailersOnlyAnswer() throws Exception {
    Map<String, String> grpcGo = Map.of("content-type", "application/grpc", "te", "trailers",
        "user-agent", "grpc-go/1.64.0", "grpc-accept-encoding", "gzip");
    byte[] message = RawHttp2.grpcFrame(new byte[] {0x0a, 0x01, 0x78});
    Map<String, byte[]> calls = Map.of(
        // Not a service of Sextant: Rover's and Satellite's reflection, Rover's span-attached events.
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", message,
        "/skywalking.v3.SpanAttachedEventReportService/collect", message,
        // A served service, a method it lacks.
        "/skywalking.v3.ServiceMeshMetricService/nope", message,
        // A served method, the stream cut off inside a message prefix (WholeGrpcMessages).
        "/skywalking.v3.ServiceMeshMetricService/collect", new byte[] {0, 0, 0});
    Map<String, Integer> expected = Map.of("/skywalking.v3.ServiceMeshMetricService/collect",
        Status.Code.INVALID_ARGUMENT.value());
    for (Map.Entry<String, byte[]> call : calls.entrySet()) {
      List<RawHttp2.Frame> frames = RawHttp2.post(sextant().grpcPort, call.getKey(), grpcGo, call.getValue());
      RawHttp2.Frame first = frames.get(0);
      assertThat(first.type()).as(call.getKey() + ": " + frames).isEqualTo("HEADERS");
      assertThat(first.endStream()).as(call.getKey() + ": the status ends the stream: " + frames).isTrue();
      assertThat(first.headers()).as(call.getKey()).containsEntry(":status", "200")
          .containsEntry("content-type", "application/grpc")
          .containsEntry("grpc-status", String.valueOf(expected.getOrDefault(call.getKey(),
              Status.Code.UNIMPLEMENTED.value())))
          .containsKey("grpc-message");
    }
    // And through grpc-java's stub, for a service Sextant does not serve.
    var reflection = GrpcClients.builder("http://127.0.0.1:" + sextant().grpcPort)
        .build(io.grpc.reflection.v1alpha.ServerReflectionGrpc.ServerReflectionStub.class);
    Status status = TestServer.clientStream(reflection::serverReflectionInfo, List.of(
        io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder().setListServices("*").build()));
    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).isEqualTo(
        "Sextant does not serve grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo");
  }

  @Test
  void aCallToAServiceSextantDoesNotServeAnswersUnimplementedAndIsCounted() throws Exception {
    // Rover calls this when a network-profiling sampling rule asks for whole requests; Sextant does not serve it.
    SpanAttachedEventReportServiceGrpc.SpanAttachedEventReportServiceStub stub = GrpcClients
        .builder("http://127.0.0.1:" + sextant().grpcPort)
        .build(SpanAttachedEventReportServiceGrpc.SpanAttachedEventReportServiceStub.class);
    Status status = TestServer.clientStream(stub::collect, List.of(SpanAttachedEvent.getDefaultInstance()));
    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription())
        .isEqualTo("Sextant does not serve skywalking.v3.SpanAttachedEventReportService/collect");
    assertThat(sextant().get("/metrics")).contains(
        "sextant_grpc_streams_total{method=\"unserved\",status=\"UNIMPLEMENTED\"} 1.0");
  }
}
