package io.sextant.receiver.envoy.als;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.EnvoyInternalAddress;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.ConnectionProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.MeshRecord;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Istio ambient mode: a waypoint ({@code waypoint~} node) logs each request it forwards, and the
 * entry becomes two calls through it, as in SkyWalking 10.3: caller to waypoint (the waypoint's
 * server side, with the entry's TLS) and waypoint to callee (its client side, NONE). Bookinfo's
 * productpage (10.0.1.4) calls reviews (10.0.3.7) through the default namespace's waypoint.
 */
class WaypointTest {
  private static final long TIME = 1_790_000_000_000L;
  private static final String WAYPOINT_ID = "waypoint~10.0.2.5~waypoint-7d9f.default~default.svc.cluster.local";
  private static final String CLUSTER = "inbound-vip|9080|http|reviews.default.svc.cluster.local";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static Value str(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  private static Struct workload(String pod, String app) {
    return Struct.newBuilder().putFields("NAME", str(pod)).putFields("NAMESPACE", str("default"))
        .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields("app", str(app))).build())
        .build();
  }

  /**
   * A waypoint pod's node metadata: no {@code app} label, but Istio's gateway labels and the
   * deployment's name as WORKLOAD_NAME (Istio's waypoint template sets ISTIO_META_WORKLOAD_NAME).
   */
  private static Node node(String id) {
    return Node.newBuilder().setId(id).setMetadata(Struct.newBuilder()
        .putFields("NAME", str("waypoint-7d9f")).putFields("NAMESPACE", str("default"))
        .putFields("WORKLOAD_NAME", str("waypoint"))
        .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields("gateway.networking.k8s.io/gateway-name", str("waypoint"))).build()))
        .build();
  }

  private static Address socket(String ip) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(9080))
        .build();
  }

  /** The waypoint reaches reviews through its internal HBONE listener; only the endpoint id names the pod. */
  private static Address internal(String endpointId) {
    return Address.newBuilder().setEnvoyInternalAddress(EnvoyInternalAddress.newBuilder()
        .setServerListenerName("connect_originate").setEndpointId(endpointId)).build();
  }

  private static final TLSProperties MTLS = TLSProperties.newBuilder()
      .setLocalCertificateProperties(TLSProperties.CertificateProperties.newBuilder()
          .addSubjectAltName(TLSProperties.CertificateProperties.SubjectAltName.newBuilder()
              .setUri("spiffe://cluster.local/ns/default/sa/waypoint")))
      .setPeerCertificateProperties(TLSProperties.CertificateProperties.newBuilder()
          .addSubjectAltName(TLSProperties.CertificateProperties.SubjectAltName.newBuilder()
              .setUri("spiffe://cluster.local/ns/default/sa/bookinfo-productpage")))
      .build();

  private static AccessLogCommon.Builder common(boolean peers) {
    AccessLogCommon.Builder c = AccessLogCommon.newBuilder()
        .setStartTime(Timestamp.newBuilder().setSeconds(TIME / 1000))
        .setTimeToLastDownstreamTxByte(Duration.newBuilder().setNanos(12_000_000))
        .setTimeToFirstUpstreamTxByte(Duration.newBuilder().setNanos(1_000_000))
        .setTimeToLastUpstreamRxByte(Duration.newBuilder().setNanos(10_000_000))
        .setDuration(Duration.newBuilder().setNanos(12_000_000))
        .setUpstreamCluster(CLUSTER)
        // As forwarded: the remote address may be taken from a header; the direct one is the socket's.
        .setDownstreamRemoteAddress(socket("203.0.113.9"))
        .setDownstreamDirectRemoteAddress(socket("10.0.1.4"))
        .setDownstreamLocalAddress(socket("10.0.2.5"))
        .setUpstreamRemoteAddress(internal("10.0.3.7:9080"))
        .setTlsProperties(MTLS);
    if (peers) {
      c.putFilterStateObjects("downstream_peer", Any.pack(workload("productpage-v1-6b746f74dc-9stvs", "productpage")))
          .putFilterStateObjects("upstream_peer", Any.pack(workload("reviews-v2-7bf8c9648f-4nx8k", "reviews")));
    }
    return c;
  }

  private static HTTPAccessLogEntry http(AccessLogCommon.Builder common) {
    return HTTPAccessLogEntry.newBuilder().setCommonProperties(common)
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setPath("/reviews/0"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(200)))
        .build();
  }

  private AccessLogConverter converter(PeerAddressResolver resolver) {
    return new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS, resolver != null),
        new EndpointNamer("", 100, 100, () -> {}), resolver, 512, new AlsMetrics(registry),
        new UnattributedLog(Long.MAX_VALUE));
  }

  /** Kubernetes mode, as the pod informer would answer: productpage and reviews by pod IP. */
  private static final PeerAddressResolver PODS = ip -> switch (ip) {
    case "10.0.1.4" -> Optional.of(new ServiceIdentity("productpage.default",
        "productpage-v1-6b746f74dc-9stvs.default", Map.of()));
    case "10.0.3.7" -> Optional.of(new ServiceIdentity("reviews.default", "reviews-v2-7bf8c9648f-4nx8k.default",
        Map.of()));
    default -> Optional.empty();
  };

  /** The proxy as the receiver builds it from a stream's node. */
  private static Proxy proxy(AccessLogConverter converter, Node node) {
    return new Proxy(node.getId(), converter.self(node).orElse(null), Proxy.Role.of(node));
  }

  private double counter(String name, String reason) {
    var c = registry.find(name).tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void nodeIdPrefixTellsTheRole() {
    assertThat(Proxy.Role.of(Node.newBuilder().setId(WAYPOINT_ID).build())).isEqualTo(Proxy.Role.WAYPOINT);
    assertThat(Proxy.Role.of(Node.newBuilder().setId("router~10.0.0.3~gw-0.istio-system~x").build()))
        .isEqualTo(Proxy.Role.GATEWAY);
    assertThat(Proxy.Role.of(Node.newBuilder().setId("sidecar~10.0.0.2~reviews-0.default~x").build()))
        .isEqualTo(Proxy.Role.SIDECAR);
    assertThat(Proxy.Role.of(Node.getDefaultInstance())).isEqualTo(Proxy.Role.SIDECAR);
  }

  @Test
  void envoyInternalAddressesGiveTheEndpointIp() {
    assertThat(AccessLogConverter.ip(internal("10.0.3.7:9080"))).isEqualTo("10.0.3.7");
    assertThat(AccessLogConverter.ip(internal("[fd00::7]:9080"))).isEqualTo("fd00::7");
    assertThat(AccessLogConverter.ip(internal("10.0.3.7"))).isEqualTo("10.0.3.7");
    assertThat(AccessLogConverter.ip(internal(""))).isEmpty();
    assertThat(AccessLogConverter.ip(socket("10.0.1.4"))).isEqualTo("10.0.1.4");
  }

  @Test
  void withPeerMetadataAnEntryIsTwoCallsThroughTheWaypoint() {
    AccessLogConverter converter = converter(null);
    Proxy waypoint = proxy(converter, node(WAYPOINT_ID));
    assertThat(waypoint.self().service()).isEqualTo("waypoint.default");
    assertThat(waypoint.self().instance()).isEqualTo("waypoint-7d9f");

    List<CallRecord> records = converter.http(http(common(true)), waypoint);
    assertThat(records).extracting(CallRecord::sourceService, CallRecord::sourceInstance, CallRecord::destService,
            CallRecord::destInstance, CallRecord::detectPoint, CallRecord::tlsMode, CallRecord::endpoint)
        .containsExactlyInAnyOrder(
            tuple("productpage.default", "productpage-v1-6b746f74dc-9stvs", "waypoint.default", "waypoint-7d9f",
                DetectPoint.SERVER, "mTLS", "GET:/reviews/0"),
            tuple("waypoint.default", "waypoint-7d9f", "reviews.default", "reviews-v2-7bf8c9648f-4nx8k",
                DetectPoint.CLIENT, "NONE", "GET:/reviews/0"));
    assertThat(records).allSatisfy(r -> assertThat(r.success()).isTrue());
  }

  @Test
  void inKubernetesModeCallerAndCalleeAreFoundByAddress() {
    AccessLogConverter converter = converter(PODS);
    Proxy waypoint = proxy(converter, node(WAYPOINT_ID));
    assertThat(waypoint.self().instance()).isEqualTo("waypoint-7d9f.default");

    // The caller by the direct remote address (not the forwarded one), the callee by the internal address.
    assertThat(converter.http(http(common(false)), waypoint))
        .extracting(CallRecord::sourceInstance, CallRecord::destInstance, CallRecord::detectPoint,
            CallRecord::tlsMode)
        .containsExactlyInAnyOrder(
            tuple("productpage-v1-6b746f74dc-9stvs.default", "waypoint-7d9f.default", DetectPoint.SERVER, "mTLS"),
            tuple("waypoint-7d9f.default", "reviews-v2-7bf8c9648f-4nx8k.default", DetectPoint.CLIENT, "NONE"));

    // Without a direct remote address, the downstream remote address names the caller.
    AccessLogCommon.Builder forwarded = common(false).clearDownstreamDirectRemoteAddress()
        .setDownstreamRemoteAddress(socket("10.0.1.4"));
    assertThat(converter.http(http(forwarded), waypoint))
        .filteredOn(r -> r.detectPoint() == DetectPoint.SERVER)
        .singleElement().satisfies(r -> assertThat(r.sourceService()).isEqualTo("productpage.default"));
  }

  @Test
  void theSameEntryFromASidecarKeepsTheSidecarRules() {
    // A sidecar's cluster says inbound or outbound; this one says neither, so without peers it is dropped.
    String sidecarId = "sidecar~10.0.2.5~waypoint-7d9f.default~default.svc.cluster.local";
    AccessLogConverter byMetadata = converter(null);
    assertThat(byMetadata.http(http(common(false)), proxy(byMetadata, node(sidecarId)))).isEmpty();
    AccessLogConverter byAddress = converter(PODS);
    assertThat(byAddress.http(http(common(false)), proxy(byAddress, node(sidecarId)))).isEmpty();
    assertThat(counter("sextant_als_entries_dropped", "direction_unknown")).isEqualTo(2);

    // With both peers, as before: the callee as its client side, the caller as its server side.
    assertThat(byMetadata.http(http(common(true)), proxy(byMetadata, node(sidecarId))))
        .extracting(CallRecord::sourceService, CallRecord::destService, CallRecord::detectPoint)
        .containsExactlyInAnyOrder(tuple("waypoint.default", "reviews.default", DetectPoint.CLIENT),
            tuple("productpage.default", "waypoint.default", DetectPoint.SERVER));
  }

  @Test
  void aTcpEntryIsTwoFlowsThroughTheWaypoint() {
    AccessLogConverter converter = converter(PODS);
    TCPAccessLogEntry entry = TCPAccessLogEntry.newBuilder().setCommonProperties(common(false))
        .setConnectionProperties(ConnectionProperties.newBuilder().setReceivedBytes(300).setSentBytes(1200))
        .build();
    List<FlowRecord> flows = converter.tcp(entry, proxy(converter, node(WAYPOINT_ID)));
    assertThat(flows).extracting(FlowRecord::sourceService, FlowRecord::destService, FlowRecord::detectPoint,
            FlowRecord::tlsMode)
        .containsExactlyInAnyOrder(tuple("productpage.default", "waypoint.default", DetectPoint.SERVER, "mTLS"),
            tuple("waypoint.default", "reviews.default", DetectPoint.CLIENT, "NONE"));
    assertThat(flows).allSatisfy(f -> {
      assertThat(f.receivedBytes()).isEqualTo(300);
      assertThat(f.sentBytes()).isEqualTo(1200);
    });
  }

  @Test
  void anUnknownCallerIsOutsideTheMesh() {
    // Kubernetes mode, a caller address no pod has (e.g. a node or a client outside the cluster).
    AccessLogConverter converter = converter(PODS);
    AccessLogCommon.Builder stranger = common(false).setDownstreamDirectRemoteAddress(socket("192.0.2.1"));
    assertThat(converter.http(http(stranger), proxy(converter, node(WAYPOINT_ID))))
        .extracting(CallRecord::sourceService, CallRecord::destService, CallRecord::detectPoint)
        .containsExactlyInAnyOrder(tuple(MeshRecord.UNKNOWN_PEER, "waypoint.default", DetectPoint.SERVER),
            tuple("waypoint.default", "reviews.default", DetectPoint.CLIENT));
    assertThat(counter("sextant_als_entries_partially_attributed", "caller_unresolved")).isEqualTo(1);

    // Metadata mode with only the upstream peer: the same.
    AccessLogConverter byMetadata = converter(null);
    AccessLogCommon.Builder onlyUpstream = common(true).removeFilterStateObjects("downstream_peer");
    assertThat(byMetadata.http(http(onlyUpstream), proxy(byMetadata, node(WAYPOINT_ID))))
        .extracting(CallRecord::sourceService, CallRecord::detectPoint)
        .containsExactlyInAnyOrder(tuple(MeshRecord.UNKNOWN_PEER, DetectPoint.SERVER),
            tuple("waypoint.default", DetectPoint.CLIENT));
  }

  @Test
  void anUnknownCalleeIsDroppedAndCounted() {
    AccessLogConverter converter = converter(PODS);
    Proxy waypoint = proxy(converter, node(WAYPOINT_ID));
    assertThat(converter.http(http(common(false).setUpstreamRemoteAddress(internal("10.9.9.9:9080"))), waypoint))
        .isEmpty();
    AccessLogConverter byMetadata = converter(null);
    AccessLogCommon.Builder onlyDownstream = common(true).removeFilterStateObjects("upstream_peer");
    assertThat(byMetadata.http(http(onlyDownstream), proxy(byMetadata, node(WAYPOINT_ID)))).isEmpty();
    assertThat(counter("sextant_als_entries_dropped", "destination_unresolved")).isEqualTo(2);
  }

  @Test
  void aWaypointWithoutNodeMetadataIsNotGuessedFromItsAddresses() {
    AccessLogConverter converter = converter(PODS);
    Proxy bare = proxy(converter, Node.newBuilder().setId(WAYPOINT_ID).build());
    assertThat(bare.self()).isNull();
    assertThat(converter.http(http(common(true)), bare)).isEmpty();
    assertThat(counter("sextant_als_entries_dropped", "proxy_unresolved")).isEqualTo(1);
  }
}
