package io.sextant.receiver.envoy.als;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.EnvoyInternalAddress;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.ConnectionProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.ResponseFlags;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.PeerMetadataTest;
import io.sextant.receiver.envoy.ServiceNaming;
import io.sextant.testkit.fuzz.Damaged;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing the Envoy access-log converter (jqwik): messages of HTTP and TCP entries built from
 * protobuf builders with arbitrary names, addresses, ports, times, durations, response codes, flags
 * and filter state (peer metadata as a Struct, a damaged FlatNode or random bytes), and the same
 * messages with bytes changed where protobuf-java still parses them, go through the converter as the
 * receiver's stream hands them over, with and without a resolver by address: each entry gives its
 * records or is dropped (an empty list, counted by reason), never an exception, and a call record's
 * latency is at least 1 ms. A longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class AccessLogConverterProperties {
  private static final ServiceIdentity POD = new ServiceIdentity("ratings.default", "ratings-0", Map.of());
  private final AlsMetrics metrics = new AlsMetrics(new SimpleMeterRegistry());
  private final EndpointNamer endpoints = new EndpointNamer("GET:/reviews/\\d+ => GET:/reviews/{id}", 50, 50,
      () -> {});
  private final UnattributedLog log = new UnattributedLog(Long.MAX_VALUE);
  private final AccessLogConverter byMetadata = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS),
      endpoints, null, 64, metrics, log);
  private final AccessLogConverter byAddress = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS,
      true), endpoints, ip -> ip.startsWith("10.") ? Optional.of(POD) : Optional.empty(), 64, metrics, log);

  @Property
  void everyEntryIsConvertedOrDropped(@ForAll("messages") StreamAccessLogsMessage message, @ForAll boolean k8s) {
    AccessLogConverter converter = k8s ? byAddress : byMetadata;
    Node node = message.getIdentifier().getNode();
    Proxy proxy = new Proxy(node.getId(), converter.self(node).orElse(null), Proxy.Role.of(node));
    for (HTTPAccessLogEntry e : message.getHttpLogs().getLogEntryList()) {
      List<CallRecord> calls = converter.http(e, proxy);
      calls.forEach(r -> Statistics.label("records").collect("call " + r.detectPoint()));
      assertThat(calls).allSatisfy(r -> assertThat(r.latencyMillis()).isPositive());
    }
    for (TCPAccessLogEntry e : message.getTcpLogs().getLogEntryList()) {
      converter.tcp(e, proxy).forEach(r -> Statistics.label("records").collect("flow " + r.detectPoint()));
    }
  }

  @Provide
  Arbitrary<StreamAccessLogsMessage> messages() {
    // A message carries HTTP or TCP entries (a oneof).
    Arbitrary<StreamAccessLogsMessage> entries = Arbitraries.oneOf(
        http().list().ofMaxSize(3).map(h -> StreamAccessLogsMessage.newBuilder()
            .setHttpLogs(StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(h)).build()),
        tcp().list().ofMaxSize(3).map(t -> StreamAccessLogsMessage.newBuilder()
            .setTcpLogs(StreamAccessLogsMessage.TCPAccessLogEntries.newBuilder().addAllLogEntry(t)).build()));
    Arbitrary<StreamAccessLogsMessage> built = Combinators.combine(node(), entries).as((n, m) -> m.toBuilder()
        .setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setNode(n)).build());
    Arbitrary<StreamAccessLogsMessage> changed = Damaged.messages(built, StreamAccessLogsMessage.parser(), 1, 3);
    return Arbitraries.oneOf(built, built, changed).withoutEdgeCases();
  }

  private static Arbitrary<String> text() {
    return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.strings().ofMaxLength(70)), Tuple.of(2, Arbitraries.of("",
        "10.0.0.7", "fd00::7", "reviews", "inbound|9080||", "outbound|9080||reviews.default.svc.cluster.local",
        "/reviews/1?x=1")));
  }

  private static Arbitrary<Node> node() {
    Arbitrary<String> id = Arbitraries.of("sidecar~10.0.0.2~ratings-0.default~default.svc.cluster.local",
        "router~10.0.0.3~gw-0.istio-system~istio-system.svc.cluster.local",
        "waypoint~10.0.2.5~waypoint-7d9f.default~default.svc.cluster.local", "");
    return Combinators.combine(id, workload().injectNull(0.1))
        .as((i, w) -> w == null ? Node.newBuilder().setId(i).build() : Node.newBuilder().setId(i).setMetadata(w)
            .build());
  }

  private static Arbitrary<Struct> workload() {
    Arbitrary<Value> name = text().map(s -> Value.newBuilder().setStringValue(s).build());
    return Combinators.combine(name, name, name).as((pod, ns, app) -> Struct.newBuilder().putFields("NAME", pod)
        .putFields("NAMESPACE", ns).putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields("app", app)).build()).build());
  }

  private static Arbitrary<Any> peer() {
    Arbitrary<byte[]> flatNode = Combinators.combine(Arbitraries.integers().between(0, 700),
        Arbitraries.integers().between(-128, 127)).as((at, value) -> {
          byte[] b = PeerMetadataTest.Node.full().build();
          b[at % b.length] = (byte) (int) value;
          return b;
        });
    return Arbitraries.oneOf(workload().map(Any::pack), flatNode.map(PeerMetadataTest::envoyFilterState),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(40).map(b -> Any.newBuilder()
            .setTypeUrl("type.googleapis.com/google.protobuf.BytesValue").setValue(ByteString.copyFrom(b)).build()));
  }

  private static Arbitrary<Timestamp> time() {
    Arbitrary<Long> seconds = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.longs()),
        Tuple.of(4, Arbitraries.of(-5L, 0L, 1_790_000_000L, Long.MAX_VALUE / 1000, Long.MAX_VALUE)));
    return Combinators.combine(seconds, Arbitraries.integers()).as((s, n) -> Timestamp.newBuilder().setSeconds(s)
        .setNanos(n).build());
  }

  private static Arbitrary<Duration> duration() {
    Arbitrary<Long> seconds = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-10, 10),
        Arbitraries.of(3_000_000L, Long.MAX_VALUE, Long.MIN_VALUE));
    return Combinators.combine(seconds, Arbitraries.integers()).as((s, n) -> Duration.newBuilder().setSeconds(s)
        .setNanos(n).build());
  }

  private static Arbitrary<Address> address() {
    Arbitrary<Address> socket = Combinators.combine(text(), Arbitraries.integers()).as((ip, port) -> Address
        .newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port)).build());
    // A waypoint's upstream: an Envoy internal address naming the callee pod in its endpoint id.
    Arbitrary<Address> internal = Arbitraries.oneOf(text(), Arbitraries.of("10.0.3.7:9080", "[fd00::7]:9080", "[",
        ":", "fd00::7")).map(id -> Address.newBuilder().setEnvoyInternalAddress(EnvoyInternalAddress.newBuilder()
            .setServerListenerName("connect_originate").setEndpointId(id)).build());
    return Arbitraries.frequencyOf(Tuple.of(4, socket), Tuple.of(1, internal));
  }

  private static Arbitrary<AccessLogCommon> common() {
    Arbitrary<String> key = Arbitraries.of("downstream_peer", "upstream_peer", "wasm.downstream_peer",
        "wasm.upstream_peer", "other");
    Arbitrary<Map<String, Any>> state = Arbitraries.maps(key, peer()).ofMaxSize(3);
    Arbitrary<TLSProperties> tls = Arbitraries.of(TLSProperties.getDefaultInstance(),
        TLSProperties.newBuilder().setLocalCertificateProperties(TLSProperties.CertificateProperties.newBuilder()
            .setSubject("CN=ratings")).build());
    Arbitrary<AccessLogCommon> times = Combinators.combine(time(), duration(), duration(), duration(), duration(),
        duration(), duration()).as((start, a, b, c, d, e, f) -> AccessLogCommon.newBuilder().setStartTime(start)
            .setTimeToFirstUpstreamTxByte(a).setTimeToLastUpstreamRxByte(b).setTimeToFirstDownstreamTxByte(c)
            .setTimeToFirstUpstreamRxByte(d).setTimeToLastDownstreamTxByte(e).setDuration(f).build());
    return Combinators.combine(times, text(), state, address(), address(), address(), tls, Arbitraries.integers())
        .as((t, cluster, s, local, remote, upstream, tlsProperties, flags) -> t.toBuilder()
            .setUpstreamCluster(cluster).putAllFilterStateObjects(s).setDownstreamLocalAddress(local)
            .setDownstreamRemoteAddress(remote).setUpstreamRemoteAddress(upstream).setTlsProperties(tlsProperties)
            .setResponseFlags(ResponseFlags.newBuilder().setNoHealthyUpstream((flags & 1) != 0)
                .setUpstreamConnectionFailure((flags & 2) != 0).setDownstreamRemoteReset((flags & 4) != 0))
            .build());
  }

  private static Arbitrary<HTTPAccessLogEntry> http() {
    return Combinators.combine(common().injectNull(0.1), Arbitraries.integers().between(-1, 9), text(),
        Arbitraries.integers(), Arbitraries.of("", "application/grpc", "text/html"))
        .as((c, method, path, code, type) -> {
          HTTPAccessLogEntry.Builder e = HTTPAccessLogEntry.newBuilder()
              .setRequest(HTTPRequestProperties.newBuilder().setRequestMethodValue(method).setPath(path)
                  .putRequestHeaders("content-type", type))
              .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(code)));
          return c == null ? e.build() : e.setCommonProperties(c).build();
        });
  }

  private static Arbitrary<TCPAccessLogEntry> tcp() {
    return Combinators.combine(common().injectNull(0.1), Arbitraries.longs(), Arbitraries.longs())
        .as((c, received, sent) -> {
          TCPAccessLogEntry.Builder e = TCPAccessLogEntry.newBuilder().setConnectionProperties(
              ConnectionProperties.newBuilder().setReceivedBytes(received).setSentBytes(sent));
          return c == null ? e.build() : e.setCommonProperties(c).build();
        });
  }
}
