package io.sextant.server.mesh;

import static io.sextant.server.testing.PlainEnvoy.http;
import static io.sextant.server.testing.PlainEnvoy.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.PlainEnvoy.Addresses;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes mode (receiver.als.kubernetes.enabled) against the Kubernetes API (fabric8's mock API
 * server in CRUD mode, pods and services created here), with proxies as older Istio or plain Envoy
 * runs them: no metadata exchange, and most nodes without Istio's NAME/NAMESPACE/LABELS. Each
 * proxy's own workload is found by address, never by the IP in its node id (here deliberately
 * another pod's); node metadata, where present, still wins. Instances are named
 * {@code <pod>.<namespace>}, as SkyWalking's Kubernetes analysis names them.
 *
 * <p>Traffic: outside → gateway → productpage → reviews (HTTP), productpage → mongodb (TCP),
 * reviews → ratings (TCP, reported by a ratings proxy with node metadata and no pod), and a proxy
 * whose address matches no pod.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class AlsKubernetesEndToEndIT {
  static KubernetesClient client; // injected by the mock-server extension

  private static final String GATEWAY_IP = "10.0.0.2";
  private static final String PRODUCTPAGE_IP = "10.0.1.1";
  private static final String REVIEWS_1_IP = "10.0.1.2";
  private static final String REVIEWS_2_IP = "10.0.1.3";
  private static final String MONGODB_IP = "10.0.1.9";
  private static final String REVIEWS_SVC_IP = "10.96.0.11";
  private static final String MONGODB_SVC_IP = "10.96.0.12";
  private static final String RATINGS_IP = "10.0.2.5"; // no pod: e.g. a VM with Istio's metadata
  private static final String OUTSIDE_IP = "192.168.7.50";
  private static final String[] PROPERTIES = {
    "kubernetes.master", "kubernetes.trust.certificates", "kubernetes.auth.tryKubeConfig",
    "kubernetes.auth.tryServiceAccount", "kubernetes.namespace"};
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);

  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    pod("istio-system", "istio-ingressgateway-5d9f7", "istio-ingressgateway", GATEWAY_IP);
    pod("default", "productpage-v1-6b746f74dc-9stvs", "productpage", PRODUCTPAGE_IP);
    pod("default", "reviews-v1-545db77b95-2ps7q", "reviews", REVIEWS_1_IP);
    pod("default", "reviews-v2-7bf8c9648f-4nx8k", "reviews", REVIEWS_2_IP);
    pod("default", "mongodb-v1-0", "mongodb", MONGODB_IP);
    service("productpage", "10.96.0.10");
    service("reviews", REVIEWS_SVC_IP);
    service("mongodb", MONGODB_SVC_IP);

    // The server's Kubernetes client finds the API server as a real one would, from its configuration.
    System.setProperty(Config.KUBERNETES_MASTER_SYSTEM_PROPERTY, client.getMasterUrl().toString());
    System.setProperty(Config.KUBERNETES_TRUST_CERT_SYSTEM_PROPERTY, "true");
    System.setProperty(Config.KUBERNETES_AUTH_TRYKUBECONFIG_SYSTEM_PROPERTY, "false");
    System.setProperty(Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY, "false");
    System.setProperty(Config.KUBERNETES_NAMESPACE_SYSTEM_PROPERTY, "default");
    sextant = new TestServer(Map.of("receiver.als.kubernetes.enabled", "true"));
    Poll.until("the five pods cached", Duration.ofSeconds(20),
        () -> sextant.get("/metrics").contains("sextant_k8s_pods_cached 5.0"));
    time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;

    // The ingress gateway: 4 requests from outside to productpage. Its node id carries reviews-v2's IP.
    List<HTTPAccessLogEntry> gateway = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      gateway.add(http(time + i, "outbound|9080||productpage.default.svc.cluster.local",
          new Addresses(OUTSIDE_IP, GATEWAY_IP, 8080, PRODUCTPAGE_IP), "/productpage", 200, 20));
    }
    // productpage's sidecar: the 4 inbound requests (server side), 3 calls to reviews (client side)
    // through the reviews Service IP, and a TCP connection to mongodb.
    List<HTTPAccessLogEntry> productpage = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      productpage.add(http(time + i, "inbound|9080||",
          new Addresses(GATEWAY_IP, PRODUCTPAGE_IP, 9080, PRODUCTPAGE_IP), "/productpage", 200, 15));
    }
    for (int i = 0; i < 3; i++) {
      productpage.add(http(time + i, "outbound|9080||reviews.default.svc.cluster.local",
          new Addresses(PRODUCTPAGE_IP, REVIEWS_SVC_IP, 9080, i == 2 ? REVIEWS_2_IP : REVIEWS_1_IP),
          "/reviews/" + i, 200, 8));
    }
    List<TCPAccessLogEntry> productpageTcp = List.of(tcp(time, "outbound|27017||mongodb.default.svc.cluster.local",
        new Addresses(PRODUCTPAGE_IP, MONGODB_SVC_IP, 27017, MONGODB_IP), 1200, 300));
    // reviews-v1's sidecar has Istio's node metadata: the 2 inbound requests it served.
    List<HTTPAccessLogEntry> reviews = List.of(
        http(time, "inbound|9080||", new Addresses(PRODUCTPAGE_IP, REVIEWS_1_IP, 9080, REVIEWS_1_IP),
            "/reviews/0", 200, 5),
        http(time + 1, "inbound|9080||", new Addresses(PRODUCTPAGE_IP, REVIEWS_1_IP, 9080, REVIEWS_1_IP),
            "/reviews/1", 200, 5));
    // mongodb's sidecar: the connection from productpage (server side).
    List<TCPAccessLogEntry> mongodb = List.of(tcp(time, "inbound|27017||",
        new Addresses(PRODUCTPAGE_IP, MONGODB_IP, 27017, MONGODB_IP), 300, 1200));
    // ratings: no pod at all, but node metadata; a connection from reviews-v2.
    List<TCPAccessLogEntry> ratings = List.of(tcp(time, "inbound|9080||",
        new Addresses(REVIEWS_2_IP, RATINGS_IP, 9080, RATINGS_IP), 40, 60));
    // A sidecar whose own address matches no pod: nothing it logs can be attributed.
    List<HTTPAccessLogEntry> stray = List.of(
        http(time, "inbound|8080||", new Addresses(PRODUCTPAGE_IP, "10.0.9.9", 8080, "10.0.9.9"), "/", 200, 1),
        http(time, "inbound|8080||", new Addresses(PRODUCTPAGE_IP, "10.0.9.9", 8080, "10.0.9.9"), "/", 200, 1));

    assertThat(envoy(message(node("router~" + REVIEWS_2_IP + "~istio-ingressgateway-5d9f7.istio-system~x", null),
        gateway, List.of()))).isEqualTo(Status.Code.OK);
    assertThat(envoy(
        message(node("sidecar~" + REVIEWS_2_IP + "~productpage-v1-6b746f74dc-9stvs.default~x", null),
            productpage, List.of()),
        message(null, List.of(), productpageTcp))).isEqualTo(Status.Code.OK);
    assertThat(envoy(message(node("sidecar~" + REVIEWS_1_IP + "~reviews-v1-545db77b95-2ps7q.default~x",
        metadata("reviews-v1-545db77b95-2ps7q", "reviews")), reviews, List.of()))).isEqualTo(Status.Code.OK);
    assertThat(envoy(message(node("sidecar~" + MONGODB_IP + "~mongodb-v1-0.default~x", null), List.of(), mongodb)))
        .isEqualTo(Status.Code.OK);
    assertThat(envoy(message(node("sidecar~" + PRODUCTPAGE_IP + "~ratings-v1-0.default~x",
        metadata("ratings-v1-0", "ratings")), List.of(), ratings))).isEqualTo(Status.Code.OK);
    assertThat(envoy(message(node("sidecar~" + PRODUCTPAGE_IP + "~stray-0.default~x", null), stray, List.of())))
        .isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  @AfterAll
  static void stop() {
    if (sextant != null) {
      sextant.close();
    }
    for (String p : PROPERTIES) {
      System.clearProperty(p);
    }
  }

  private static void pod(String namespace, String name, String app, String ip) {
    client.resource(new PodBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).withLabels(Map.of("app", app)).endMetadata()
        .withNewSpec().withNodeName("node-1")
            .addNewContainer().withName(app).withImage(app + ":1").endContainer().endSpec()
        .withNewStatus().withPhase("Running").withPodIP(ip).endStatus()
        .build()).create();
  }

  private static void service(String name, String clusterIp) {
    client.resource(new ServiceBuilder()
        .withNewMetadata().withNamespace("default").withName(name).endMetadata()
        .withNewSpec().withClusterIP(clusterIp).withSelector(Map.of("app", name))
            .addNewPort().withName("http").withPort(9080).endPort().endSpec()
        .build()).create();
  }

  private static Struct metadata(String pod, String app) {
    return Struct.newBuilder()
        .putFields("NAME", Value.newBuilder().setStringValue(pod).build())
        .putFields("NAMESPACE", Value.newBuilder().setStringValue("default").build())
        .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields("app", Value.newBuilder().setStringValue(app).build())).build())
        .build();
  }

  private static Node node(String id, Struct metadata) {
    Node.Builder b = Node.newBuilder().setId(id);
    if (metadata != null) {
      b.setMetadata(metadata);
    }
    return b.build();
  }

  private static StreamAccessLogsMessage message(Node node, List<HTTPAccessLogEntry> http,
      List<TCPAccessLogEntry> tcp) {
    StreamAccessLogsMessage.Builder b = StreamAccessLogsMessage.newBuilder();
    if (node != null) {
      b.setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setNode(node).setLogName("als"));
    }
    if (!tcp.isEmpty()) {
      b.setTcpLogs(StreamAccessLogsMessage.TCPAccessLogEntries.newBuilder().addAllLogEntry(tcp));
    } else {
      b.setHttpLogs(StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(http));
    }
    return b.build();
  }

  private static Status.Code envoy(StreamAccessLogsMessage... messages) throws Exception {
    AccessLogServiceGrpc.AccessLogServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(AccessLogServiceGrpc.AccessLogServiceStub.class);
    return TestServer.clientStream(stub::streamAccessLogs, List.of(messages)).getCode();
  }

  private static String duration() {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return "{start: \"" + m + "\", end: \"" + m + "\", step: MINUTE}";
  }

  private static String value(String expression, String entity) throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + expression + "\", entity: {" + entity
        + "}, duration: " + duration() + ") { error results { values { value } } } }").get("r");
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    JsonNode v = r.get("results").get(0).get("values").get(0).get("value");
    return v.isNull() ? null : v.asText();
  }

  private static TreeSet<String> instances(String service) throws Exception {
    TreeSet<String> names = new TreeSet<>();
    sextant.data("{ listInstances(duration: " + duration() + ", serviceId: \""
        + EntityIds.serviceId(service, true) + "\") { name } }")
        .get("listInstances").forEach(i -> names.add(i.get("name").asText()));
    return names;
  }

  @Test
  void everyProxyIsFoundByItsOwnAddressOrItsMetadata() throws Exception {
    TreeSet<String> names = new TreeSet<>();
    sextant.data("{ listServices(layer: \"MESH\") { name } }").get("listServices")
        .forEach(s -> names.add(s.get("name").asText()));
    assertThat(names).containsExactly("istio-ingressgateway.istio-system", "mongodb.default", "productpage.default",
        "ratings.default", "reviews.default");
  }

  @Test
  void instancesAreNamedPodDotNamespace() throws Exception {
    assertThat(instances("istio-ingressgateway.istio-system"))
        .containsExactly("istio-ingressgateway-5d9f7.istio-system");
    assertThat(instances("productpage.default")).containsExactly("productpage-v1-6b746f74dc-9stvs.default");
    // reviews-v2 is only named by productpage's outbound entries: as in SkyWalking, a client-side
    // report lists no instance of its destination.
    assertThat(instances("reviews.default")).containsExactly("reviews-v1-545db77b95-2ps7q.default");
    assertThat(instances("mongodb.default")).containsExactly("mongodb-v1-0.default");
    // Named from its node metadata, in the Kubernetes mode's form, so one pod is one instance.
    assertThat(instances("ratings.default")).containsExactly("ratings-v1-0.default");
  }

  @Test
  void topologyHasEveryEdgeWithItsDetectPoints() throws Exception {
    JsonNode calls = sextant.data("{ getGlobalTopology(duration: " + duration() + ", layer: \"MESH\")"
        + " { calls { source target detectPoints } } }")
        .get("getGlobalTopology").get("calls");
    TreeSet<String> edges = new TreeSet<>();
    calls.forEach(c -> edges.add(EntityIds.parseServiceId(c.get("source").asText()).name() + "->"
        + EntityIds.parseServiceId(c.get("target").asText()).name() + " " + c.get("detectPoints")));
    assertThat(edges).containsExactly(
        "UNKNOWN->istio-ingressgateway.istio-system [\"SERVER\"]",
        "istio-ingressgateway.istio-system->productpage.default [\"CLIENT\",\"SERVER\"]",
        "productpage.default->mongodb.default [\"CLIENT\",\"SERVER\"]",
        "productpage.default->reviews.default [\"CLIENT\",\"SERVER\"]",
        "reviews.default->ratings.default [\"SERVER\"]");
  }

  @Test
  void countsAreExact() throws Exception {
    assertThat(value("service_cpm", "serviceName: \"productpage.default\"")).isEqualTo("4");
    assertThat(value("service_cpm", "serviceName: \"istio-ingressgateway.istio-system\"")).isEqualTo("4");
    String gwToPp = "serviceName: \"istio-ingressgateway.istio-system\", destServiceName: \"productpage.default\"";
    assertThat(value("service_relation_client_cpm", gwToPp)).isEqualTo("4");
    assertThat(value("service_relation_server_cpm", gwToPp)).isEqualTo("4");
    String ppToReviews = "serviceName: \"productpage.default\", destServiceName: \"reviews.default\"";
    assertThat(value("service_relation_client_cpm", ppToReviews)).isEqualTo("3");
    assertThat(value("service_relation_server_cpm", ppToReviews)).isEqualTo("2");
    String ppToMongo = "serviceName: \"productpage.default\", destServiceName: \"mongodb.default\"";
    assertThat(value("service_relation_client_received", ppToMongo)).isEqualTo("1200");
    assertThat(value("service_relation_server_received", ppToMongo)).isEqualTo("300");
    assertThat(value("service_relation_server_received",
        "serviceName: \"reviews.default\", destServiceName: \"ratings.default\"")).isEqualTo("40");
  }

  @Test
  void entriesThatCannotBeAttributedAreCountedByReason() throws Exception {
    String metrics = sextant.get("/metrics");
    assertThat(metrics).contains("sextant_als_entries_dropped_total{reason=\"proxy_unresolved\"} 2.0");
    assertThat(metrics).doesNotContain("sextant_als_entries_dropped_total{reason=\"unknown_node\"}");
    // The gateway's callers are outside the mesh: attributed to UNKNOWN, and counted as such.
    assertThat(metrics)
        .contains("sextant_als_entries_partially_attributed_total{reason=\"caller_unresolved\"} 4.0");
    assertThat(metrics).contains("sextant_als_entries_total{kind=\"http\"} 15.0");
    assertThat(metrics).contains("sextant_als_entries_total{kind=\"tcp\"} 3.0");
    assertThat(metrics).contains("sextant_als_entries_attributed_total 16.0");
  }
}
