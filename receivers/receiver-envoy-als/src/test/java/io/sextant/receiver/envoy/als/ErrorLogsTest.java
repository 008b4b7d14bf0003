package io.sextant.receiver.envoy.als;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.ResponseFlags;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.log.LogEntry;
import io.sextant.api.log.LogRecords;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which of Envoy's entries become logs, what they say, and the per-service bound. */
class ErrorLogsTest {
  private static final long TIME = 1_790_000_000_000L;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<StoredRecord> written = new ArrayList<>();

  @Test
  void aFailedRequestIsTheReportingProxysLogWithWhatADebuggerNeeds() {
    ErrorLogs logs = new ErrorLogs(600, 0, 100, written::add, registry);
    HTTPAccessLogEntry e = http(503, ResponseFlags.newBuilder().setUpstreamConnectionFailure(true)
        .setUpstreamRetryLimitExceeded(true).build());

    logs.http(e, List.of(call(DetectPoint.SERVER, 503, "UF,URX")), "sidecar~10.0.3.7~reviews-v1-0.default~x");

    LogEntry log = LogRecords.fromRecord(written.get(0));
    assertThat(log.service()).isEqualTo("reviews.default");
    assertThat(log.instance()).isEqualTo("reviews-v1-0");
    assertThat(log.endpoint()).isEqualTo("GET:/reviews/0");
    assertThat(log.timeMillis()).isEqualTo(TIME + 30);
    assertThat(log.tags()).containsExactly(new LogEntry.Tag("level", "ERROR"), new LogEntry.Tag("status.code", "503"),
        new LogEntry.Tag("response.flag", "UF,URX"));
    assertThat(log.contentType()).isEqualTo("JSON");
    assertThat(log.content()).contains("\"side\":\"server\"", "\"status\":503", "\"responseFlags\":\"UF,URX\"",
        "\"UF: upstream connection failure\"", "\"URX: upstream retry or connect attempt limit exceeded\"",
        "\"responseCodeDetails\":\"upstream_reset_before_response_started{connection_failure}\"",
        "\"upstreamCluster\":\"inbound|9080||\"", "\"upstreamHost\":\"10.0.3.7\"", "\"peer\":\"productpage.default\"",
        "\"tls\":\"mTLS\"", "\"requestId\":\"7f9c-req\"", "\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-"
            + "00f067aa0ba902b7-01\"", "\"durationMs\":30");
    assertThat(written.get(0).tags()).contains("t:response.flag=UF", "t:response.flag=URX", "t:status.code=503");
  }

  @Test
  void successesAreLeftOutUnlessSampledAndAReplayHasTheSameId() {
    ErrorLogs logs = new ErrorLogs(600, 0, 100, written::add, registry);
    logs.http(http(200, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, 200, "")), "n");
    assertThat(written).isEmpty();
    logs.http(http(404, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, 404, "")), "n");
    logs.http(http(404, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, 404, "")), "n");
    assertThat(written).hasSize(2);
    assertThat(written.get(0).id()).isEqualTo(written.get(1).id());
    assertThat(LogRecords.fromRecord(written.get(0)).tags()).contains(new LogEntry.Tag("level", "WARN"));

    ErrorLogs sampled = new ErrorLogs(600, 2, 100, written::add, registry);
    for (int i = 0; i < 5; i++) {
      sampled.http(http(200, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, 200, "")), "n");
    }
    assertThat(written).hasSize(4);
  }

  @Test
  void aServiceKeepsItsBudgetAndAStormOfOneKindLeavesRoomForTheOthers() {
    ErrorLogs logs = new ErrorLogs(10, 0, 100, written::add, registry);
    for (int i = 0; i < 50; i++) {
      logs.http(http(404, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, 404, "")), "n");
    }
    // A fifth of the service's 10 per minute for 404s.
    assertThat(written).hasSize(2);
    for (int i = 0; i < 50; i++) {
      ResponseFlags uf = ResponseFlags.newBuilder().setUpstreamConnectionFailure(true).build();
      logs.http(http(503, uf), List.of(call(DetectPoint.SERVER, 503, "UF")), "n");
    }
    assertThat(written).hasSize(4);
    assertThat(registry.get("sextant_als_error_logs").tag("outcome", "rate_limited").counter().count())
        .isEqualTo(96);
  }

  @Test
  void anyStatusCodeAProxySendsStaysWithinTheBudgetsBound() {
    // One service tracked: its budget entry and at most 7 classes a minute.
    ErrorLogs logs = new ErrorLogs(600, 0, 1, written::add, registry);
    for (int code = 400; code < 430; code++) {
      logs.http(http(code, ResponseFlags.getDefaultInstance()), List.of(call(DetectPoint.SERVER, code, "")), "n");
    }
    assertThat(written).hasSize(7);
  }

  @Test
  void aTcpConnectionWithAFlagIsALogAndAClientSideLogHasNoEndpoint() {
    ErrorLogs logs = new ErrorLogs(600, 0, 100, written::add, registry);
    TCPAccessLogEntry tcp = TCPAccessLogEntry.newBuilder().setCommonProperties(common()
        .setResponseFlags(ResponseFlags.newBuilder().setUpstreamConnectionFailure(true))).build();
    FlowRecord flow = new FlowRecord(TIME, TIME + 30, "reviews.default", "reviews-v1-0", "mongodb.default", "",
        DetectPoint.CLIENT, "NONE", "UF", 0, 0, 0, 0, Layer.MESH, Map.of(), Map.of());
    logs.tcp(tcp, List.of(flow), "n");

    LogEntry log = LogRecords.fromRecord(written.get(0));
    assertThat(log.service()).isEqualTo("reviews.default");
    assertThat(log.endpoint()).isEmpty();
    assertThat(log.tags()).containsExactly(new LogEntry.Tag("level", "ERROR"), new LogEntry.Tag("response.flag", "UF"));
    assertThat(log.content()).contains("\"side\":\"client\"", "\"protocol\":\"tcp\"", "\"peer\":\"mongodb.default\"");
  }

  private static AccessLogCommon.Builder common() {
    return AccessLogCommon.newBuilder().setStartTime(Timestamp.newBuilder().setSeconds(TIME / 1000))
        .setTimeToLastDownstreamTxByte(Duration.newBuilder().setNanos(30_000_000))
        .setUpstreamCluster("inbound|9080||")
        .setUpstreamRemoteAddress(Address.newBuilder().setSocketAddress(SocketAddress.newBuilder()
            .setAddress("10.0.3.7").setPortValue(9080)));
  }

  private static HTTPAccessLogEntry http(int code, ResponseFlags flags) {
    return HTTPAccessLogEntry.newBuilder().setCommonProperties(common().setResponseFlags(flags))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setPath("/reviews/0")
            .setRequestId("7f9c-req").putRequestHeaders("traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(code))
            .setResponseCodeDetails(code == 503 ? "upstream_reset_before_response_started{connection_failure}" : ""))
        .build();
  }

  private static CallRecord call(DetectPoint side, int code, String flags) {
    return new CallRecord(TIME, TIME + 30, "productpage.default", "productpage-v1-0", "reviews.default",
        "reviews-v1-0", "GET:/reviews/0", 30, code, code < 500, CallProtocol.HTTP, side, "mTLS", flags, 0, 0,
        Layer.MESH, Map.of(), Map.of());
  }
}
