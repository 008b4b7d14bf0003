package io.sextant.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.MetadataUtils;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.RawGrpc;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receiver tokens over real ports, sent exactly as SkyWalking's clients send them: the Java and Go
 * agents, Satellite and Rover all put their {@code authentication} setting, unchanged, in the gRPC
 * metadata key {@code authentication} (lower case on the wire, as HTTP/2 requires).
 */
class ReceiverTokensIT {
  /** As for Istio, whose mesh settings cannot add metadata to the Envoy metrics stream. */
  private static final String OPEN = "envoy.service.metrics.v3.MetricsService";
  @TempDir
  static Path dir;
  private static Path tokensFile;
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(() -> {
    tokensFile = Files.writeString(dir.resolve("receiver-tokens"), "from-the-file\n");
    return Map.of("auth.receiverTokens", "current,next", "auth.receiverTokensFile", tokensFile.toString(),
        "server.fileCheckSeconds", "1", "auth.receiversWithoutToken", OPEN);
  });
  private static TestServer sextant;

  @BeforeAll
  static void start() {
    sextant = SEXTANT.server();
  }

  @Test
  void everyReceiverMethodRefusesACallWithoutTheTokenOrWithAWrongOneAndTakesOneWithIt() {
    List<String> methods = sextant.server.receiverMethods();
    assertThat(methods).as("mesh, ALS, Envoy metrics, events, Rover").hasSizeGreaterThan(8)
        .contains("skywalking.v3.ServiceMeshMetricService/collect",
            "envoy.service.accesslog.v3.AccessLogService/StreamAccessLogs", "skywalking.v3.EventService/collect");
    for (String method : methods) {
      if (method.startsWith(OPEN + "/")) {
        assertThat(rawCall(method, null).get("grpc-status")).as(method + " needs no token").isNotEqualTo("16");
        continue;
      }
      Map<String, String> none = rawCall(method, null);
      assertThat(none).as(method).containsEntry("grpc-status", "16");
      assertThat(none.get("grpc-message")).as(method).contains("set the client's authentication setting");
      Map<String, String> wrong = rawCall(method, "stale");
      assertThat(wrong).as(method).containsEntry("grpc-status", "16");
      assertThat(wrong.get("grpc-message")).as(method).contains("not one this collector accepts")
          .doesNotContain("stale");
      assertThat(rawCall(method, "current").get("grpc-status")).as(method).isNotEqualTo("16");
    }
    String metrics = sextant.server.registry().scrape();
    assertThat(metrics).contains("sextant_receiver_unauthenticated_total{reason=\"missing_token\","
        + "service=\"skywalking.v3.ServiceMeshMetricService\"}").doesNotContain("stale");
  }

  @Test
  void bothTokensOfARotationAreTakenAndTheRecordsCounted() throws Exception {
    Bookinfo traffic = Bookinfo.standard(System.currentTimeMillis());
    assertThat(stream(null, traffic)).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(stream("current", traffic)).isEqualTo(Status.Code.OK);
    assertThat(stream("next", traffic)).isEqualTo(Status.Code.OK);
    sextant.flush();
    assertThat(sextant.data("{ s: listServices(layer: \"MESH\") { name } }").get("s").findValuesAsText("name"))
        .contains("productpage", "reviews");
  }

  @Test
  void theTokensFileIsReadAgainWhenItChanges() throws Exception {
    assertThat(authenticated("from-the-file")).isTrue();
    Path tmp = Files.writeString(dir.resolve("receiver-tokens.tmp"), "rotated\n");
    Files.move(tmp, tokensFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Poll.until("the new file token accepted", Duration.ofSeconds(10), () -> authenticated("rotated"));
    assertThat(authenticated("from-the-file")).isFalse();
    assertThat(authenticated("current")).as("the setting's tokens stay").isTrue();
  }

  /** Past the token check (an empty mesh message is then refused for what it lacks: 3, not 16). */
  private static boolean authenticated(String token) {
    return !"16".equals(rawCall("skywalking.v3.ServiceMeshMetricService/collect", token).get("grpc-status"));
  }

  @Test
  void healthChecksNeedNoToken() {
    HealthCheckResponse r = GrpcClients.newClient("http://127.0.0.1:" + sextant.grpcPort,
        HealthGrpc.HealthBlockingStub.class).check(HealthCheckRequest.getDefaultInstance());
    assertThat(r.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  /** A stream of mesh telemetry from a real gRPC stub with the token in its metadata, as Satellite sends. */
  private static Status.Code stream(String token, Bookinfo traffic) throws Exception {
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(Metadata.Key.of("authentication", Metadata.ASCII_STRING_MARSHALLER), token);
    }
    ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub = GrpcClients
        .builder("http://127.0.0.1:" + sextant.grpcPort).intercept(MetadataUtils.newAttachHeadersInterceptor(headers))
        .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
    return TestServer.clientStream(stub::collect, traffic.messages(10)).getCode();
  }

  /**
   * One call with one empty message (valid for every message type), the token in exactly the
   * header the clients put on the wire; its gRPC status and message.
   */
  private static Map<String, String> rawCall(String method, String token) {
    return RawGrpc.call(sextant.grpcPort, method, token == null ? Map.of() : Map.of("authentication", token),
        new byte[5]);
  }
}
