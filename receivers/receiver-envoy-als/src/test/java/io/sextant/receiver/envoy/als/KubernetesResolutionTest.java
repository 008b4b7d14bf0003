package io.sextant.receiver.envoy.als;

import static io.sextant.receiver.envoy.als.Proxy.Role.SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;

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
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.ServiceNaming;
import io.sextant.receiver.k8s.KubernetesPeerResolver;
import io.sextant.receiver.k8s.ServiceNameRule;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Without Istio's metadata exchange, peers are found by address through the Kubernetes API
 * (fabric8's mock API server in CRUD mode): an inbound entry's caller by its downstream address,
 * an outbound entry's callee by its upstream address.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesResolutionTest {
  KubernetesClient client; // injected by the mock-server extension

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private KubernetesPeerResolver resolver;

  @AfterEach
  void stop() {
    if (resolver != null) {
      resolver.close();
    }
  }

  private void pod(String name, String app, String ip) {
    client.resource(new PodBuilder()
        .withNewMetadata().withNamespace("default").withName(name).withLabels(Map.of("app", app)).endMetadata()
        .withNewSpec().withNodeName("node-1")
            .addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
        .withNewStatus().withPhase("Running").withPodIP(ip).endStatus()
        .build()).create();
  }

  private static HTTPAccessLogEntry entry(String cluster, String downstreamIp, String upstreamIp) {
    long now = System.currentTimeMillis();
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder()
            .setStartTime(Timestamp.newBuilder().setSeconds(now / 1000))
            .setUpstreamCluster(cluster)
            .setDownstreamRemoteAddress(addr(downstreamIp))
            .setUpstreamRemoteAddress(addr(upstreamIp)))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setPath("/ratings/1"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(200)))
        .build();
  }

  private static Address addr(String ip) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(9080)).build();
  }

  @Test
  void peersWithoutMetadataExchangeAreResolvedByPodIp() throws Exception {
    pod("reviews-v2-7bf8c9648f-4nx8k", "reviews", "10.1.0.7");
    pod("ratings-v1-5f9699cfdf-qvx2m", "ratings", "10.1.0.9");
    resolver = new KubernetesPeerResolver(client, ServiceNameRule.defaultRule(), registry, 1000);
    resolver.start();
    Poll.until("10.1.0.9 resolved", Duration.ofSeconds(10), () -> resolver.byIp("10.1.0.9").isPresent());
    AccessLogConverter converter = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS),
        new EndpointNamer("", 100, 100, () -> {}), resolver, 512, new AlsMetrics(registry));
    Node ratingsNode = Node.newBuilder()
        .setId("sidecar~10.1.0.9~ratings-v1-5f9699cfdf-qvx2m.default~default.svc.cluster.local")
        .setMetadata(Struct.newBuilder()
            .putFields("NAME", Value.newBuilder().setStringValue("ratings-v1-5f9699cfdf-qvx2m").build())
            .putFields("NAMESPACE", Value.newBuilder().setStringValue("default").build())
            .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
                .putFields("app", Value.newBuilder().setStringValue("ratings").build())).build()))
        .build();
    ServiceIdentity ratings = converter.self(ratingsNode).orElseThrow();
    assertThat(ratings.service()).isEqualTo("ratings.default");

    List<CallRecord> in = converter.http(entry("inbound|9080||", "10.1.0.7", "127.0.0.1"), ratings, SIDECAR);
    assertThat(in).hasSize(1);
    assertThat(in.get(0).detectPoint()).isEqualTo(DetectPoint.SERVER);
    assertThat(in.get(0).sourceService()).isEqualTo("reviews.default");
    // SkyWalking names an instance found through the Kubernetes API <pod>.<namespace>.
    assertThat(in.get(0).sourceInstance()).isEqualTo("reviews-v2-7bf8c9648f-4nx8k.default");
    assertThat(in.get(0).destService()).isEqualTo("ratings.default");

    ServiceIdentity reviews = new ServiceIdentity("reviews.default", "reviews-v2-7bf8c9648f-4nx8k", Map.of());
    List<CallRecord> out = converter.http(
        entry("outbound|9080||ratings.default.svc.cluster.local", "127.0.0.1", "10.1.0.9"),
        reviews, SIDECAR);
    assertThat(out).hasSize(1);
    assertThat(out.get(0).detectPoint()).isEqualTo(DetectPoint.CLIENT);
    assertThat(out.get(0).destService()).isEqualTo("ratings.default");

    // An address nobody knows: the entry is counted as unresolved, not silently lost.
    assertThat(converter.http(entry("outbound|9080||x", "127.0.0.1", "10.9.9.9"), reviews, SIDECAR)).isEmpty();
    assertThat(registry.get("sextant_als_entries_dropped").tag("reason", "destination_unresolved").counter().count())
        .isEqualTo(1.0);
  }

  private static HTTPAccessLogEntry withLocal(HTTPAccessLogEntry e, String localIp) {
    return e.toBuilder()
        .setCommonProperties(e.getCommonProperties().toBuilder().setDownstreamLocalAddress(addr(localIp))).build();
  }

  @Test
  void proxiesWithoutNodeMetadataAreFoundByTheirOwnAddress() throws Exception {
    pod("productpage-v1-6b746f74dc-9stvs", "productpage", "10.1.0.5");
    pod("reviews-v2-7bf8c9648f-4nx8k", "reviews", "10.1.0.7");
    resolver = new KubernetesPeerResolver(client, ServiceNameRule.defaultRule(), registry, 1000);
    resolver.start();
    Poll.until("both pods cached", Duration.ofSeconds(10), () -> resolver.cachedPods() >= 2);
    AccessLogConverter converter = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS, true),
        new EndpointNamer("", 100, 100, () -> {}), resolver, 512, new AlsMetrics(registry));
    // The node id names reviews' IP; the entry's addresses say productpage. Addresses win.
    Proxy plain = new Proxy("sidecar~10.1.0.7~productpage-v1-6b746f74dc-9stvs.default~x", null, SIDECAR);

    // Client side: the application's own pod is the downstream remote address; the Service IP is local.
    List<CallRecord> out = converter.http(
        withLocal(entry("outbound|9080||reviews.default.svc.cluster.local", "10.1.0.5", "10.1.0.7"), "10.96.0.3"),
        plain);
    assertThat(out).singleElement().satisfies(r -> {
      assertThat(r.detectPoint()).isEqualTo(DetectPoint.CLIENT);
      assertThat(r.sourceService()).isEqualTo("productpage.default");
      assertThat(r.sourceInstance()).isEqualTo("productpage-v1-6b746f74dc-9stvs.default");
      assertThat(r.destInstance()).isEqualTo("reviews-v2-7bf8c9648f-4nx8k.default");
    });

    // Server side: the proxy's own pod is the downstream local address; the direct remote address wins.
    HTTPAccessLogEntry in = withLocal(entry("inbound|9080||", "203.0.113.9", "10.1.0.5"), "10.1.0.5");
    in = in.toBuilder().setCommonProperties(in.getCommonProperties().toBuilder()
        .setDownstreamDirectRemoteAddress(addr("10.1.0.7"))).build();
    assertThat(converter.http(in, plain)).singleElement().satisfies(r -> {
      assertThat(r.detectPoint()).isEqualTo(DetectPoint.SERVER);
      assertThat(r.sourceService()).isEqualTo("reviews.default");
      assertThat(r.destService()).isEqualTo("productpage.default");
    });

    // Node metadata, when present, wins over the address (here an address no pod has).
    Proxy named = new Proxy("sidecar~x", new ServiceIdentity("ratings.default", "ratings-v1-0.default", Map.of()),
        SIDECAR);
    assertThat(converter.http(withLocal(entry("inbound|9080||", "10.1.0.7", "10.9.9.9"), "10.9.9.9"), named))
        .singleElement().satisfies(r -> assertThat(r.destService()).isEqualTo("ratings.default"));

    // No metadata and an own address that matches no pod; or no direction to pick an address by.
    assertThat(converter.http(withLocal(entry("inbound|9080||", "10.1.0.7", "10.9.9.9"), "10.9.9.9"), plain))
        .isEmpty();
    assertThat(converter.http(withLocal(entry("BlackHoleCluster", "10.1.0.5", "10.1.0.7"), "10.1.0.7"), plain))
        .isEmpty();
    assertThat(registry.get("sextant_als_entries_dropped").tag("reason", "proxy_unresolved").counter().count())
        .isEqualTo(1.0);
    assertThat(registry.get("sextant_als_entries_dropped").tag("reason", "direction_unknown").counter().count())
        .isEqualTo(1.0);
  }
}
