package io.sextant.receiver.envoy.als;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc.AccessLogServiceStub;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage.HTTPAccessLogEntries;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage.Identifier;
import io.sextant.api.receiver.WarmUpTraffic;
import io.sextant.receiver.common.ClientStreamRound;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What two Istio sidecars log over the Access Log Service when one calls the other: the caller's
 * outbound entries (the callee in {@code upstream_peer}) and the callee's inbound entries (the
 * caller in {@code downstream_peer}, over mTLS), each proxy on its own stream with its identifier
 * first, as Envoy sends them.
 */
final class AlsWarmUpTraffic implements WarmUpTraffic {
  private static final int MESSAGES_PER_STREAM = 10;
  private static final int ENTRIES_PER_MESSAGE = 20;
  private static final int PORT = 9080;

  private final SplittableRandom random = new SplittableRandom(24);
  private final Sidecar caller = new Sidecar("warm-up-caller", "10.0.0.1");
  private final Sidecar callee = new Sidecar("warm-up-callee", "10.0.0.2");

  /** A sidecar: its identifier, and its metadata as peers learn it. */
  private record Sidecar(String service, String ip, Identifier identifier, Any peer) {
    Sidecar(String service, String ip) {
      this(service, ip, identifier(service, ip), Any.pack(metadata(service)));
    }

    private static Struct metadata(String service) {
      Struct labels = Struct.newBuilder()
          .putFields("app", text(service))
          .putFields("version", text("v1"))
          .putFields("service.istio.io/canonical-name", text(service))
          .putFields("service.istio.io/canonical-revision", text("v1"))
          .build();
      return Struct.newBuilder()
          .putFields("NAME", text(service + "-v1-0"))
          .putFields("NAMESPACE", text("sextant"))
          .putFields("CLUSTER_ID", text("Kubernetes"))
          .putFields("WORKLOAD_NAME", text(service + "-v1"))
          .putFields("LABELS", Value.newBuilder().setStructValue(labels).build())
          .build();
    }

    private static Identifier identifier(String service, String ip) {
      return Identifier.newBuilder()
          .setNode(Node.newBuilder()
              .setId("sidecar~" + ip + "~" + service + "-v1-0.sextant~sextant.svc.cluster.local")
              .setCluster(service + "-v1.sextant")
              .setMetadata(metadata(service)))
          .setLogName("http_envoy_accesslog")
          .build();
    }
  }

  @Override
  public int round(Stubs stubs) throws InterruptedException {
    AccessLogServiceStub stub = stubs.stub(AccessLogServiceStub.class);
    ClientStreamRound.send(stub::streamAccessLogs, messages(caller, true));
    ClientStreamRound.send(stub::streamAccessLogs, messages(callee, false));
    return 2 * MESSAGES_PER_STREAM * ENTRIES_PER_MESSAGE;
  }

  private List<StreamAccessLogsMessage> messages(Sidecar self, boolean outbound) {
    List<StreamAccessLogsMessage> messages = new ArrayList<>();
    for (int m = 0; m < MESSAGES_PER_STREAM; m++) {
      HTTPAccessLogEntries.Builder entries = HTTPAccessLogEntries.newBuilder();
      for (int i = 0; i < ENTRIES_PER_MESSAGE; i++) {
        entries.addLogEntry(outbound ? outbound() : inbound());
      }
      StreamAccessLogsMessage.Builder message = StreamAccessLogsMessage.newBuilder().setHttpLogs(entries);
      if (m == 0) {
        message.setIdentifier(self.identifier());
      }
      messages.add(message.build());
    }
    return messages;
  }

  private HTTPAccessLogEntry outbound() {
    AccessLogCommon.Builder common = common()
        .setDownstreamRemoteAddress(address(caller.ip(), ephemeralPort()))
        .setDownstreamLocalAddress(address("10.96.0.2", PORT))
        .setUpstreamRemoteAddress(address(callee.ip(), PORT))
        .setUpstreamLocalAddress(address(caller.ip(), ephemeralPort()))
        .setUpstreamCluster("outbound|" + PORT + "||" + callee.service() + ".sextant.svc.cluster.local")
        .putFilterStateObjects("upstream_peer", callee.peer());
    return entry(common);
  }

  private HTTPAccessLogEntry inbound() {
    AccessLogCommon.Builder common = common()
        .setDownstreamRemoteAddress(address(caller.ip(), ephemeralPort()))
        .setDownstreamLocalAddress(address(callee.ip(), PORT))
        .setUpstreamRemoteAddress(address(callee.ip(), PORT))
        .setUpstreamLocalAddress(address("127.0.0.6", ephemeralPort()))
        .setUpstreamCluster("inbound|" + PORT + "||")
        .putFilterStateObjects("downstream_peer", caller.peer())
        .setTlsProperties(TLSProperties.newBuilder()
            .setTlsVersion(TLSProperties.TLSVersion.TLSv1_3)
            .setTlsSniHostname("outbound_." + PORT + "_._." + callee.service() + ".sextant.svc.cluster.local"));
    return entry(common);
  }

  private AccessLogCommon.Builder common() {
    long now = System.currentTimeMillis();
    long latencyNanos = (1 + random.nextInt(200)) * 1_000_000L;
    return AccessLogCommon.newBuilder()
        .setSampleRate(1.0)
        .setStartTime(Timestamp.newBuilder().setSeconds(now / 1000).setNanos((int) (now % 1000) * 1_000_000))
        .setRouteName("default")
        .setUpstreamRequestAttemptCount(1)
        .setTimeToLastRxByte(nanos(50_000))
        .setTimeToFirstUpstreamTxByte(nanos(100_000))
        .setTimeToLastUpstreamTxByte(nanos(108_000))
        .setTimeToFirstUpstreamRxByte(nanos(100_000 + latencyNanos * 3 / 4))
        .setTimeToLastUpstreamRxByte(nanos(100_000 + latencyNanos))
        .setTimeToFirstDownstreamTxByte(nanos(150_000 + latencyNanos * 3 / 4))
        .setTimeToLastDownstreamTxByte(nanos(150_000 + latencyNanos))
        .setDuration(nanos(150_000 + latencyNanos));
  }

  private HTTPAccessLogEntry entry(AccessLogCommon.Builder common) {
    boolean failed = random.nextInt(50) == 0;
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(common)
        .setProtocolVersion(HTTPAccessLogEntry.HTTPVersion.HTTP11)
        .setRequest(HTTPRequestProperties.newBuilder()
            .setRequestMethod(random.nextBoolean() ? RequestMethod.GET : RequestMethod.POST)
            .setScheme("http")
            .setAuthority(callee.service() + ".sextant:" + PORT)
            .setPath("/api/items/" + random.nextInt(8))
            .setUserAgent("python-requests/2.31.0")
            .setRequestHeadersBytes(200))
        .setResponse(HTTPResponseProperties.newBuilder()
            .setResponseCode(UInt32Value.of(failed ? 503 : 200))
            .setResponseCodeDetails("via_upstream")
            .setResponseBodyBytes(2048))
        .build();
  }

  private int ephemeralPort() {
    return 32768 + random.nextInt(28232);
  }

  private static Address address(String ip, int port) {
    return Address.newBuilder()
        .setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port)).build();
  }

  private static Duration nanos(long n) {
    return Duration.newBuilder().setSeconds(n / 1_000_000_000L).setNanos((int) (n % 1_000_000_000L)).build();
  }

  private static Value text(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }
}
