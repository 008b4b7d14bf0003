package io.sextant.receiver.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Runs the resolver against fabric8's mock API server in CRUD mode (real list/watch semantics). */
@EnableKubernetesMockClient(crud = true)
class KubernetesPeerResolverTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  KubernetesClient client; // injected by the mock-server extension

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private KubernetesPeerResolver resolver;

  @AfterEach
  void tearDown() {
    if (resolver != null) {
      resolver.close();
    }
  }

  private KubernetesPeerResolver start(ServiceNameRule rule, int maxPods) {
    resolver = new KubernetesPeerResolver(client, rule, registry, maxPods);
    resolver.start();
    await("informer sync", resolver::isSynced);
    return resolver;
  }

  private KubernetesPeerResolver start() {
    return start(ServiceNameRule.defaultRule(), 1000);
  }

  private static PodBuilder pod(String ns, String name, String ip, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-1")
        .addNewContainer()
        .withName("app")
        .withImage("app:1")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .withPodIP(ip)
        .endStatus();
  }

  private Pod create(PodBuilder pod) {
    return client.resource(pod.build()).create();
  }

  private static void await(String what, BooleanSupplier condition) {
    try {
      Poll.until(what, TIMEOUT, condition::getAsBoolean);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private ServiceIdentity awaitService(String ip, String service) {
    await(ip + " -> " + service, () -> resolver.byIp(ip).map(id -> id.service().equals(service)).orElse(false));
    return resolver.byIp(ip).orElseThrow();
  }

  private void awaitGone(String ip) {
    await(ip + " removed", () -> resolver.byIp(ip).isEmpty());
  }

  @Test
  void resolvesPodsListedBeforeStartAndWatchedAfter() {
    create(
        pod("bookinfo", "reviews-v1-7f78d020dc-x2k9p", "10.0.0.5", "Running")
            .editMetadata()
            .withLabels(Map.of("app", "reviews"))
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("reviews-v1-7f78d020dc")
            .withUid("rs-1")
            .withController(true)
            .endOwnerReference()
            .endMetadata());
    start();

    ServiceIdentity id = awaitService("10.0.0.5", "reviews.bookinfo");
    assertThat(id.instance()).isEqualTo("reviews-v1-7f78d020dc-x2k9p.bookinfo");
    assertThat(id.properties())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "pod", "reviews-v1-7f78d020dc-x2k9p",
                "namespace", "bookinfo",
                "node", "node-1",
                "ip", "10.0.0.5"));

    create(
        pod("shop", "cart-0", "10.0.1.7", "Running")
            .editMetadata()
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("StatefulSet")
            .withName("cart")
            .withUid("ss-1")
            .withController(true)
            .endOwnerReference()
            .endMetadata());
    assertThat(awaitService("10.0.1.7", "cart.shop").instance()).isEqualTo("cart-0.shop");
    assertThat(resolver.cachedPods()).isEqualTo(2);
    assertThat(registry.get("sextant_k8s_pods_cached").gauge().value()).isEqualTo(2.0);
  }

  @Test
  void ownerFallbackStripsReplicaSetHashAndCanonicalNameWins() {
    start();
    create(
        pod("bookinfo", "ratings-v1-5d9ac8c55d-abcde", "10.0.0.8", "Running")
            .editMetadata()
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("ratings-v1-5d9ac8c55d")
            .withUid("rs-2")
            .withController(true)
            .endOwnerReference()
            .endMetadata());
    create(
        pod("bookinfo", "details-1", "10.0.0.9", "Running")
            .editMetadata()
            .withLabels(Map.of("app", "details-app", "service.istio.io/canonical-name", "details"))
            .endMetadata());
    awaitService("10.0.0.8", "ratings-v1.bookinfo");
    awaitService("10.0.0.9", "details.bookinfo");
  }

  @Test
  void labelUpdateRenamesAndDeleteRemoves() {
    start();
    create(pod("default", "web-1", "10.0.0.10", "Running")
        .editMetadata().withLabels(Map.of("app", "web")).endMetadata());
    awaitService("10.0.0.10", "web.default");

    client.pods().inNamespace("default").withName("web-1").edit(p -> new PodBuilder(p)
        .editMetadata().addToLabels("service.istio.io/canonical-name", "frontend").endMetadata().build());
    awaitService("10.0.0.10", "frontend.default");

    client.pods().inNamespace("default").withName("web-1").delete();
    awaitGone("10.0.0.10");
    assertThat(resolver.cachedPods()).isZero();
  }

  @Test
  void ipChangeRemovesOldEntry() {
    start();
    create(pod("default", "mover", "10.0.0.20", "Running"));
    awaitService("10.0.0.20", "mover.default");

    client.pods().inNamespace("default").withName("mover").edit(p -> new PodBuilder(p)
        .editStatus().withPodIP("10.0.0.21").endStatus().build());
    awaitService("10.0.0.21", "mover.default");
    assertThat(resolver.byIp("10.0.0.20")).isEmpty();
    assertThat(resolver.cachedPods()).isEqualTo(1);
  }

  @Test
  void podsWithoutIpOrTerminatedAreNotIndexed() {
    start();
    create(pod("default", "pending", null, "Pending"));
    create(pod("default", "done", "10.0.0.31", "Succeeded"));
    create(pod("default", "failed", "10.0.0.32", "Failed"));
    create(pod("default", "host", "192.168.0.1", "Running").editSpec().withHostNetwork(true).endSpec());
    create(pod("default", "sentinel", "10.0.0.33", "Running"));
    // Events are delivered in order, so once the last pod is visible the others were processed.
    awaitService("10.0.0.33", "sentinel.default");
    assertThat(resolver.byIp("10.0.0.31")).isEmpty();
    assertThat(resolver.byIp("10.0.0.32")).isEmpty();
    assertThat(resolver.byIp("192.168.0.1")).isEmpty();
    assertThat(resolver.cachedPods()).isEqualTo(1);

    // A running pod that completes is dropped from the index.
    client.pods().inNamespace("default").withName("sentinel").edit(p -> new PodBuilder(p)
        .editStatus().withPhase("Succeeded").endStatus().build());
    awaitGone("10.0.0.33");
    assertThat(resolver.cachedPods()).isZero();
  }

  @Test
  void customTemplate() {
    start(ServiceNameRule.parse("${annotation:mesh/service|pod}-in-${namespace}"), 1000);
    create(pod("ns1", "p1", "10.0.2.1", "Running")
        .editMetadata().withAnnotations(Map.of("mesh/service", "billing")).endMetadata());
    create(pod("ns1", "p2", "10.0.2.2", "Running"));
    awaitService("10.0.2.1", "billing-in-ns1");
    awaitService("10.0.2.2", "p2-in-ns1");
  }

  @Test
  void maxPodsBoundsTheCacheAndCountsDrops() {
    start(ServiceNameRule.defaultRule(), 2);
    create(pod("default", "a", "10.0.3.1", "Running"));
    create(pod("default", "b", "10.0.3.2", "Running"));
    create(pod("default", "c", "10.0.3.3", "Running"));
    await("a drop is counted", () -> registry.get("sextant_k8s_pods_dropped").counter().count() >= 1);
    assertThat(resolver.cachedPods()).isEqualTo(2);
    assertThat(resolver.byIp("10.0.3.1")).isPresent();
    assertThat(resolver.byIp("10.0.3.2")).isPresent();
    assertThat(resolver.byIp("10.0.3.3")).isEmpty();
    assertThat(registry.get("sextant_k8s_pods_cached").gauge().value()).isEqualTo(2.0);

    // Updates to cached pods still apply at capacity.
    client.pods().inNamespace("default").withName("a").edit(p -> new PodBuilder(p)
        .editMetadata().addToLabels("app", "alpha").endMetadata().build());
    awaitService("10.0.3.1", "alpha.default");
  }

  @Test
  void countsHitsAndMisses() {
    start();
    create(pod("default", "x", "10.0.4.1", "Running"));
    awaitService("10.0.4.1", "x.default");
    double hitsBefore = registry.get("sextant_k8s_lookups").tag("result", "hit").counter().count();
    double missesBefore = registry.get("sextant_k8s_lookups").tag("result", "miss").counter().count();

    assertThat(resolver.byIp("10.0.4.1")).isPresent();
    assertThat(resolver.byIp("10.9.9.9")).isEmpty();
    assertThat(resolver.byIp(null)).isEmpty();

    assertThat(registry.get("sextant_k8s_lookups").tag("result", "hit").counter().count() - hitsBefore)
        .isEqualTo(1.0);
    assertThat(registry.get("sextant_k8s_lookups").tag("result", "miss").counter().count() - missesBefore)
        .isEqualTo(2.0);
  }

  @Test
  void closeStopsWatchingAndUnregistersMeters() throws Exception {
    start();
    create(pod("default", "before", "10.0.5.1", "Running"));
    awaitService("10.0.5.1", "before.default");

    resolver.close();
    resolver.close(); // idempotent
    assertThat(resolver.byIp("10.0.5.1")).isEmpty();
    assertThat(registry.find("sextant_k8s_pods_cached").gauge()).isNull();
    assertThat(registry.find("sextant_k8s_lookups").counters()).isEmpty();

    create(pod("default", "after", "10.0.5.2", "Running"));
    Poll.stays("the pod created after close unseen", Duration.ofMillis(300),
        () -> resolver.byIp("10.0.5.2").isEmpty() && resolver.cachedPods() == 0);
    assertThatThrownBy(resolver::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> new KubernetesPeerResolver(client, ServiceNameRule.defaultRule(), registry, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPods");
    KubernetesPeerResolver r = new KubernetesPeerResolver(client, ServiceNameRule.defaultRule(), registry);
    try {
      r.start();
      assertThatThrownBy(r::start).isInstanceOf(IllegalStateException.class);
      Optional<ServiceIdentity> none = r.byIp("1.2.3.4");
      assertThat(none).isEmpty();
    } finally {
      r.close();
    }
  }
}
