package io.sextant.server.mesh;

import static io.sextant.server.testing.Istio.inbound;
import static io.sextant.server.testing.Istio.outbound;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.grpc.Status;
import io.prometheus.client.Metrics;
import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.Istio;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What SkyWalking's UI and e2e expectations rely on, after Istio access logs and Envoy metrics over
 * real gRPC: the MESH / MESH_DP hierarchy, empty ids answering nothing, calls carrying mtls, and
 * node types decided by the server side (the gateway's too).
 */
class MeshCompatibilityIT {
  static final Istio.Pod GATEWAY =
      new Istio.Pod("istio-ingressgateway-5d9f7", "istio-system", "istio-ingressgateway", "10.0.0.2");
  static final Istio.Pod PRODUCTPAGE =
      new Istio.Pod("productpage-v1-6b746f74dc-9stvs", "default", "productpage", "10.0.1.1");
  static final Istio.Pod REVIEWS = new Istio.Pod("reviews-v1-545db77b95-2ps7q", "default", "reviews", "10.0.1.2");
  private static final String PP = EntityIds.serviceId("productpage.default", true);
  private static final String REVIEWS_ID = EntityIds.serviceId("reviews.default", true);
  private static final String GATEWAY_ID = EntityIds.serviceId("istio-ingressgateway.istio-system", true);
  private static final String UNKNOWN_ID = EntityIds.serviceId("UNKNOWN", true);
  private static final String DETAILS_ID = EntityIds.serviceId("details.default", true);
  private static final String PP_POD = EntityIds.instanceId(PP, PRODUCTPAGE.name());

  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    sextant = new TestServer(Map.of());
    time = (System.currentTimeMillis() / 60_000 - 2) * 60_000 + 1000;
    List<HTTPAccessLogEntry> gateway = new ArrayList<>();
    List<HTTPAccessLogEntry> productpage = new ArrayList<>();
    List<HTTPAccessLogEntry> reviews = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      gateway.add(outbound(time + i, GATEWAY, PRODUCTPAGE, "/productpage", 200, 20));
      productpage.add(inbound(time + i, GATEWAY, PRODUCTPAGE, "/productpage", 200, 15));
      productpage.add(outbound(time + i, PRODUCTPAGE, REVIEWS, "/reviews/0", 200, 8));
      reviews.add(inbound(time + i, PRODUCTPAGE, REVIEWS, "/reviews/0", 200, 6));
    }
    assertThat(accessLogs(GATEWAY.gateway(), gateway)).isEqualTo(Status.Code.OK);
    assertThat(accessLogs(PRODUCTPAGE.sidecar(), productpage)).isEqualTo(Status.Code.OK);
    assertThat(accessLogs(REVIEWS.sidecar(), reviews)).isEqualTo(Status.Code.OK);
    // productpage's sidecar also reports Envoy metrics (MESH_DP), naming reviews and details upstream.
    StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder()
        .setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(PRODUCTPAGE.sidecar()));
    m.addEnvoyMetrics(gauge("server.memory_heap_size", 100_000_000.0));
    m.addEnvoyMetrics(gauge("cluster.outbound|9080||reviews.default.svc.cluster.local.upstream_rq_active", 2));
    m.addEnvoyMetrics(gauge("cluster.outbound|9080||details.default.svc.cluster.local.upstream_rq_active", 1));
    MetricsServiceGrpc.MetricsServiceStub metrics = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MetricsServiceGrpc.MetricsServiceStub.class);
    assertThat(TestServer.clientStream(metrics::streamMetrics, List.of(m.build())).getCode())
        .isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  @AfterAll
  static void stop() {
    sextant.close();
  }

  private static Status.Code accessLogs(Node node, List<HTTPAccessLogEntry> entries) throws Exception {
    AccessLogServiceGrpc.AccessLogServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(AccessLogServiceGrpc.AccessLogServiceStub.class);
    StreamAccessLogsMessage message = StreamAccessLogsMessage.newBuilder()
        .setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setNode(node).setLogName("als"))
        .setHttpLogs(StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(entries))
        .build();
    return TestServer.clientStream(stub::streamAccessLogs, List.of(message)).getCode();
  }

  private static Metrics.MetricFamily gauge(String name, double v) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.GAUGE)
        .addMetric(Metrics.Metric.newBuilder().setGauge(Metrics.Gauge.newBuilder().setValue(v))
            .setTimestampMs(time))
        .build();
  }

  private static String duration() {
    String minute = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(time));
    return "{start: \"" + minute + "\", end: \"" + minute + "\", step: MINUTE}";
  }

  private static String service(String id, String name, String layer) {
    return "{\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"layer\":\"" + layer + "\",\"normal\":true}";
  }

  private static String instance(String layer) {
    return "{\"id\":\"" + PP_POD + "\",\"name\":\"" + PRODUCTPAGE.name() + "\",\"serviceId\":\"" + PP
        + "\",\"serviceName\":\"productpage.default\",\"layer\":\"" + layer + "\",\"normal\":true}";
  }

  @Test
  void layerLevelsAreSkyWalkings() throws Exception {
    JsonNode levels = sextant.data("{ listLayerLevels { layer level } }").get("listLayerLevels");
    Map<String, Integer> byLayer = new TreeMap<>();
    levels.forEach(l -> byLayer.put(l.get("layer").asText(), l.get("level").asInt()));
    assertThat(levels).hasSize(18);
    assertThat(byLayer).containsEntry("MESH", 3).containsEntry("GENERAL", 3).containsEntry("MYSQL", 2)
        .containsEntry("MESH_DP", 1).containsEntry("K8S_SERVICE", 0);
  }

  @Test
  void theMeshServiceIsAboveItsDataPlane() throws Exception {
    String relation = "[{\"upperService\":" + service(PP, "productpage.default", "MESH")
        + ",\"lowerService\":" + service(PP, "productpage.default", "MESH_DP") + "}]";
    String fields = " { relations { upperService { id name layer normal } lowerService { id name layer normal } } }";
    for (String layer : List.of("MESH", "MESH_DP")) {
      assertThat(sextant.data("{ h: getServiceHierarchy(serviceId: \"" + PP + "\", layer: \"" + layer + "\")"
          + fields + " }").get("h").get("relations").toString()).isEqualTo(relation);
    }
    // reviews reports no Envoy metrics (productpage's Envoy naming it upstream does not count).
    assertThat(sextant.data("{ h: getServiceHierarchy(serviceId: \"" + REVIEWS_ID + "\", layer: \"MESH\")"
        + fields + " }").get("h").get("relations")).isEmpty();
    assertThat(sextant.data("{ h: getServiceHierarchy(serviceId: \"" + EntityIds.serviceId("nope", true)
        + "\", layer: \"MESH\")" + fields + " }").get("h").get("relations")).isEmpty();
    assertThat(sextant.data("{ h: getServiceHierarchy(serviceId: \"\", layer: \"MESH\")" + fields + " }")
        .get("h").get("relations")).isEmpty();
    assertThat(sextant.graphql("{ getServiceHierarchy(serviceId: \"x\", layer: \"MESH\") { relations {"
        + " upperService { id } } } }").get("errors").get(0).get("message").asText())
        .isEqualTo("malformed service id: x");
  }

  @Test
  void thePodIsTheSameInstanceInBothLayers() throws Exception {
    String fields = " { relations { upperInstance { id name serviceId serviceName layer normal }"
        + " lowerInstance { id name serviceId serviceName layer normal } } }";
    String relation = "[{\"upperInstance\":" + instance("MESH") + ",\"lowerInstance\":" + instance("MESH_DP") + "}]";
    for (String layer : List.of("MESH", "MESH_DP")) {
      assertThat(sextant.data("{ h: getInstanceHierarchy(instanceId: \"" + PP_POD + "\", layer: \"" + layer
          + "\")" + fields + " }").get("h").get("relations").toString()).isEqualTo(relation);
    }
    assertThat(sextant.data("{ h: getInstanceHierarchy(instanceId: \"" + EntityIds.instanceId(PP, "gone")
        + "\", layer: \"MESH\")" + fields + " }").get("h").get("relations")).isEmpty();
    assertThat(sextant.data("{ h: getInstanceHierarchy(instanceId: \"\", layer: \"MESH\")" + fields + " }")
        .get("h").get("relations")).isEmpty();
  }

  @Test
  void emptyIdsAnswerNothingAndMalformedOnesAnError() throws Exception {
    JsonNode r = sextant.graphql("{ a: listInstances(duration: " + duration() + ", serviceId: \"\") { id }"
        + " b: getServiceInstances(duration: " + duration() + ", serviceId: \"\") { id }"
        + " c: findEndpoint(serviceId: \"\", keyword: \"\", limit: 10) { id }"
        + " d: getService(serviceId: \"\") { id }"
        + " e: getInstance(instanceId: \"\") { id }"
        + " f: getEndpointInfo(endpointId: \"\") { id }"
        + " g: getServiceTopology(serviceId: \"\", duration: " + duration() + ") { nodes { id } calls { id } } }");
    assertThat(r.has("errors")).as(r.toString()).isFalse();
    assertThat(r.get("data").toString()).isEqualTo("{\"a\":[],\"b\":[],\"c\":[],\"d\":null,\"e\":null,\"f\":null,"
        + "\"g\":{\"nodes\":[],\"calls\":[]}}");
    JsonNode bad = sextant.graphql("{ listInstances(duration: " + duration() + ", serviceId: \"x\") { id } }");
    assertThat(bad.get("errors").get(0).get("message").asText()).isEqualTo("malformed service id: x");
  }

  @Test
  void callsCarryMtlsAndNodesTheirServerSideType() throws Exception {
    JsonNode topo = sextant.data("{ t: getGlobalTopology(duration: " + duration() + ") { nodes { id type }"
        + " calls { source target detectPoints sourceComponents targetComponents } } }").get("t");
    Map<String, String> types = new TreeMap<>();
    topo.get("nodes").forEach(n -> types.put(EntityIds.parseServiceId(n.get("id").asText()).name(),
        n.get("type").isNull() ? null : n.get("type").asText()));
    // productpage also reports Envoy metrics; details is only named by them: no server side, no type.
    Map<String, String> expectedTypes = new TreeMap<>();
    expectedTypes.put("UNKNOWN", null);
    expectedTypes.put("details.default", null);
    expectedTypes.put("istio-ingressgateway.istio-system", "http");
    expectedTypes.put("productpage.default", "http");
    expectedTypes.put("reviews.default", "http");
    assertThat(types).isEqualTo(expectedTypes);

    Map<String, String> calls = new TreeMap<>();
    topo.get("calls").forEach(c -> calls.put(
        EntityIds.parseServiceId(c.get("source").asText()).name() + "->"
            + EntityIds.parseServiceId(c.get("target").asText()).name(),
        c.get("detectPoints") + " " + c.get("sourceComponents") + " " + c.get("targetComponents")));
    assertThat(calls).isEqualTo(Map.of(
        "UNKNOWN->istio-ingressgateway.istio-system", "[\"SERVER\"] [] [\"http\",\"mtls\"]",
        "istio-ingressgateway.istio-system->productpage.default",
        "[\"CLIENT\",\"SERVER\"] [\"http\"] [\"http\",\"mtls\"]",
        "productpage.default->reviews.default",
        "[\"CLIENT\",\"SERVER\"] [\"http\",\"Unknown\"] [\"http\",\"mtls\"]",
        "productpage.default->details.default", "[\"CLIENT\"] [\"Unknown\"] []"));
    // UNKNOWN is the gateway's caller, not a service of the mesh.
    JsonNode services = sextant.data("{ listServices(layer: \"MESH\") { id } }").get("listServices");
    List<String> ids = new ArrayList<>();
    services.forEach(s -> ids.add(s.get("id").asText()));
    assertThat(ids).containsExactlyInAnyOrder(GATEWAY_ID, PP, REVIEWS_ID).doesNotContain(UNKNOWN_ID, DETAILS_ID);
  }
}
