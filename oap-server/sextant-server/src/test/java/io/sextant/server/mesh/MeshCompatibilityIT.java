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
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

  /** A secret in the configuration, to see the debugging dump mask it. */
  @RegisterExtension
  static final SextantExtension SEXTANT =
      SextantExtension.perClass(Map.of("storage.elasticsearch.password", "s3cret-of-the-mesh"));
  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    sextant = SEXTANT.server();
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

  // ---- what booster-ui 10.2 to 10.4 (and their web container) add ----

  @Test
  void topListsNameTheOwnerOfEachValueThroughArithmetic() throws Exception {
    JsonNode values = sextant.data("{ r: execExpression(expression: \"top_n(service_cpm,10,des,attr0='MESH')/1\","
        + " entity: {normal: true}, duration: " + coldDuration() + ") { type results { values { id value owner {"
        + " scope serviceID serviceName normal serviceInstanceID endpointID } } } error } }")
        .get("r").get("results").get(0).get("values");
    Map<String, String> owners = new TreeMap<>();
    values.forEach(v -> owners.put(v.get("id").asText(), v.get("owner").toString()));
    assertThat(owners).containsEntry("productpage.default", "{\"scope\":\"Service\",\"serviceID\":\"" + PP
        + "\",\"serviceName\":\"productpage.default\",\"normal\":true,\"serviceInstanceID\":null,"
        + "\"endpointID\":null}");
    JsonNode instances = sextant.data("{ r: execExpression(expression: \"top_n(service_instance_cpm,5,des)\","
        + " entity: {serviceName: \"productpage.default\", normal: true}, duration: " + duration()
        + ") { results { values { id owner { scope serviceName serviceInstanceID serviceInstanceName } } } } }")
        .get("r").get("results").get(0).get("values");
    assertThat(instances.get(0).get("owner").toString()).isEqualTo("{\"scope\":\"ServiceInstance\","
        + "\"serviceName\":\"productpage.default\",\"serviceInstanceID\":\"" + PP_POD
        + "\",\"serviceInstanceName\":\"" + PRODUCTPAGE.name() + "\"}");
    // Values that belong to no one entity have no owner.
    JsonNode series = sextant.data("{ r: execExpression(expression: \"service_cpm\", entity: {serviceName:"
        + " \"productpage.default\", normal: true}, duration: " + duration() + ") { results { values { value owner {"
        + " scope } } } } }").get("r").get("results").get(0).get("values").get(0);
    assertThat(series.get("value").asText()).isEqualTo("4");
    assertThat(series.get("owner").isNull()).isTrue();
  }

  @Test
  void boolOperatorsAndMergedRankingsOnRealTraffic() throws Exception {
    String entity = "{serviceName: \"productpage.default\", normal: true}";
    JsonNode both = sextant.data("{ r: execExpression(expression: \"avg(service_cpm) > 3 && avg(service_sla) >= 10000"
        + "\", entity: " + entity + ", duration: " + duration() + ") { results { values { value } } error } }")
        .get("r");
    assertThat(both.get("results").get(0).get("values").get(0).get("value").asText()).isEqualTo("1");
    JsonNode either = sextant.data("{ r: execExpression(expression: \"avg(service_cpm) > 5 || avg(service_sla) < 5000"
        + "\", entity: " + entity + ", duration: " + duration() + ") { results { values { value } } } }").get("r");
    assertThat(either.get("results").get(0).get("values").get(0).get("value").asText()).isEqualTo("0");
    JsonNode merged = sextant.data("{ r: execExpression(expression: \"top_n_of(top_n(service_cpm,1,des,attr0='MESH'),"
        + " top_n(service_instance_cpm,1,des), 2, des)\", entity: {normal: true}, duration: " + duration()
        + ") { type results { values { id value owner { scope } } } error } }").get("r");
    assertThat(merged.get("type").asText()).isEqualTo("SORTED_LIST");
    List<String> scopes = new ArrayList<>();
    merged.get("results").get(0).get("values").forEach(v -> scopes.add(v.get("owner").get("scope").asText()));
    assertThat(scopes).containsExactlyInAnyOrder("Service", "ServiceInstance");
  }

  @Test
  void endpointsOfADurationInstancesAndTopologyByName() throws Exception {
    String lastHour = "{start: \"" + minute(time - 3_600_000) + "\", end: \"" + minute(time - 1_800_000)
        + "\", step: MINUTE, coldStage: false}";
    JsonNode r = sextant.data("{ seen: findEndpoint(serviceId: \"" + PP + "\", keyword: \"\", limit: 10, duration: "
        + coldDuration() + ") { name } before: findEndpoint(serviceId: \"" + PP + "\", limit: 10, duration: "
        + lastHour + ") { name } all: findEndpoint(serviceId: \"" + PP + "\", limit: 10) { name }"
        + " byName: findEndpointByName(service: {serviceName: \"productpage.default\", layer: \"MESH\"}, limit: 10,"
        + " duration: " + duration() + ") { name }"
        + " pods: listInstancesByName(duration: " + coldDuration()
        + ", service: {serviceName: \"productpage.default\"}) { id name }"
        + " topo: getServiceTopologyByName(service: {serviceName: \"reviews.default\"}, duration: " + coldDuration()
        + ") { calls { source target } }"
        + " pair: getServiceInstanceTopologyByName(clientService: {serviceName: \"productpage.default\"},"
        + " serverService: {serviceName: \"reviews.default\"}, duration: " + duration() + ") { nodes { name } }"
        + " none: getEndpointDependenciesByName(endpoint: {serviceName: \"reviews.default\", endpointName:"
        + " \"/reviews/0\"}, duration: " + duration() + ") { nodes { id } } }");
    assertThat(r.get("seen").toString()).isEqualTo("[{\"name\":\"GET:/productpage\"}]");
    assertThat(r.get("before")).isEmpty();
    assertThat(r.get("all").toString()).isEqualTo("[{\"name\":\"GET:/productpage\"}]");
    assertThat(r.get("byName").toString()).isEqualTo("[{\"name\":\"GET:/productpage\"}]");
    assertThat(r.get("pods").toString()).isEqualTo("[{\"id\":\"" + PP_POD + "\",\"name\":\"" + PRODUCTPAGE.name()
        + "\"}]");
    assertThat(r.get("topo").get("calls").toString())
        .isEqualTo("[{\"source\":\"" + PP + "\",\"target\":\"" + REVIEWS_ID + "\"}]");
    List<String> pods = new ArrayList<>();
    r.get("pair").get("nodes").forEach(n -> pods.add(n.get("name").asText()));
    assertThat(pods).containsExactlyInAnyOrder(PRODUCTPAGE.name(), REVIEWS.name());
    assertThat(r.get("none").get("nodes")).isEmpty();
    assertThat(sextant.graphql("{ listInstancesByName(duration: " + duration() + ", service: {serviceName: \"\"})"
        + " { id } }").get("errors").get(0).get("message").asText()).contains("serviceName is required");
  }

  @Test
  void ttlsAndTraceV2AreAnsweredOnEveryPage() throws Exception {
    JsonNode r = sextant.data("{ getMetricsTTL { minute hour day coldMinute coldHour coldDay }"
        + " getRecordsTTL { normal trace log coldNormal } hasQueryTracesV2Support }");
    assertThat(r.get("getMetricsTTL").toString()).isEqualTo("{\"minute\":1,\"hour\":7,\"day\":30,"
        + "\"coldMinute\":-1,\"coldHour\":-1,\"coldDay\":-1}");
    assertThat(r.get("getRecordsTTL").toString())
        .isEqualTo("{\"normal\":1,\"trace\":1,\"log\":1,\"coldNormal\":-1}");
    assertThat(r.get("hasQueryTracesV2Support").asBoolean()).isFalse();
    // What newer UIs' trace and async-profiling widgets send, and LAL testing, is refused with the
    // reason, not failed as unknown fields.
    Map<String, String> refusals = Map.of(
        "{ queryTraces(condition: {traceState: ALL, queryOrder: BY_START_TIME, paging: {pageNum: 1, pageSize: 5}})"
            + " { traces { spans { traceId } } } }", "traces are outside Sextant's scope",
        "{ queryTrace(traceId: \"t\", duration: " + coldDuration() + ") { spans { traceId } } }",
        "traces are outside Sextant's scope",
        "{ test(requests: {log: \"{}\", dsl: \"filter {}\"}) { log { content } } }",
        "LAL (SkyWalking's log analysis language) is not part of Sextant",
        "{ queryAsyncProfilerTaskList(request: {serviceId: \"" + PP + "\"}) { tasks { id } } }",
        "async-profiler) is outside Sextant's scope");
    for (Map.Entry<String, String> e : refusals.entrySet()) {
      assertThat(sextant.graphql(e.getKey()).get("errors").get(0).get("message").asText()).as(e.getKey())
          .contains("is not supported by Sextant: ").contains(e.getValue());
    }
  }

  @Test
  void theUiContainersHealthCheckAndTheSettingsPageEndpoints() throws Exception {
    for (String method : List.of("GET", "HEAD")) {
      java.net.http.HttpResponse<String> health = TestServer.HTTP.send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + sextant.httpPort + "/healthcheck"))
          .method(method, java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(method).isEqualTo(200);
    }
    JsonNode nodes = JSON.readTree(sextant.get("/status/cluster/nodes"));
    assertThat(nodes.toString()).isEqualTo("{\"nodes\":[{\"host\":\"127.0.0.1\",\"port\":" + sextant.grpcPort
        + ",\"self\":true}]}");
    JsonNode ttl = JSON.readTree(sextant.get("/status/config/ttl"));
    assertThat(ttl.get("metrics").toString()).isEqualTo("{\"minute\":1,\"hour\":7,\"day\":30,\"coldMinute\":-1,"
        + "\"coldHour\":-1,\"coldDay\":-1}");
    assertThat(ttl.get("records").get("normal").asInt()).isEqualTo(1);
    JsonNode dump = JSON.readTree(sextant.get("/debugging/config/dump"));
    assertThat(dump.get("server.grpcPort").asText()).isEqualTo(String.valueOf(sextant.grpcPort));
    assertThat(dump.get("storage.elasticsearch.password").asText()).isEqualTo("******");
    assertThat(dump.toString()).doesNotContain("s3cret");
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** The duration booster-ui 10.3+ sends: with coldStage. */
  private static String coldDuration() {
    return "{start: \"" + minute(time) + "\", end: \"" + minute(time) + "\", step: MINUTE, coldStage: false}";
  }

  private static String minute(long millis) {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(millis));
  }
}
