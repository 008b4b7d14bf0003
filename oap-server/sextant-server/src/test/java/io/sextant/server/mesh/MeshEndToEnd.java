package io.sextant.server.mesh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
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
import org.junit.jupiter.api.TestInstance;

/**
 * Streams the bookinfo mix over real gRPC into a real server and reads it back over HTTP GraphQL:
 * exactly the services, instances, edges and metric values that went in must come out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class MeshEndToEnd {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyy-MM-dd HH").withZone(ZoneOffset.UTC);
  private TestServer sextant;
  private long time;

  /** Configuration that selects the storage backend under test. */
  protected abstract Map<String, String> storage();

  @BeforeAll
  public void streamTraffic() throws Exception {
    sextant = new TestServer(storage());
    // Three minutes ago, one second into the minute: the minute is closed at the first flush, so
    // the hour roll-up is written too.
    long minute = (System.currentTimeMillis() / 60_000 - 3) * 60_000;
    time = minute + 1000;
    Status status = sextant.stream(Bookinfo.standard(time).messages(7));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  private String duration() {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return "{start: \"" + m + "\", end: \"" + m + "\", step: MINUTE}";
  }

  private static String sid(String name) {
    return EntityIds.serviceId(name, true);
  }

  /** Values of an expression for an entity over the one-minute duration. */
  private List<String> exec(String expression, String entity) throws Exception {
    return exec(expression, entity, duration());
  }

  private List<String> exec(String expression, String entity, String duration) throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + expression.replace("\"", "\\\"")
        + "\", entity: {" + entity + "}, duration: " + duration
        + ") { type error results { metric { labels { key value } } values { id value } } } }").get("r");
    assertThat(r.get("error").isNull()).as("error %s", r.get("error")).isTrue();
    List<String> out = new ArrayList<>();
    for (JsonNode series : r.get("results")) {
      for (JsonNode v : series.get("values")) {
        out.add(v.get("value").isNull() ? null : v.get("value").asText());
      }
    }
    return out;
  }

  @Test
  public void servicesOfTheMeshLayer() throws Exception {
    JsonNode services = sextant.data("{ listServices(layer: \"MESH\") { id name shortName layers normal } }")
        .get("listServices");
    TreeSet<String> names = new TreeSet<>();
    for (JsonNode s : services) {
      names.add(s.get("name").asText());
      assertThat(s.get("id").asText()).isEqualTo(sid(s.get("name").asText()));
      assertThat(s.get("layers").toString()).isEqualTo("[\"MESH\"]");
      assertThat(s.get("normal").asBoolean()).isTrue();
    }
    // The gateway only reports the client side of its calls here, so, as in SkyWalking 10.1, it is a
    // topology node but not a listed service (ServicesListIT).
    assertThat(names).containsExactly("details", "mongodb", "productpage", "ratings", "reviews");
    assertThat(sextant.data("{ listLayers }").get("listLayers").toString()).isEqualTo("[\"MESH\"]");
    assertThat(sextant.data("{ getAllServices(duration: " + duration() + ") { name } }").get("getAllServices"))
        .hasSize(5);
  }

  @Test
  public void idsRoundTripThroughEveryQueryThatTakesOne() throws Exception {
    String reviews = sextant.data("{ findService(serviceName: \"reviews\") { id } }")
        .get("findService").get("id").asText();
    assertThat(reviews).isEqualTo(sid("reviews"));
    assertThat(sextant.data("{ getService(serviceId: \"" + reviews + "\") { name } }")
        .get("getService").get("name").asText())
        .isEqualTo("reviews");

    JsonNode instances = sextant.data("{ listInstances(duration: " + duration() + ", serviceId: \"" + reviews
        + "\") { id name attributes { name value } } }").get("listInstances");
    assertThat(instances).hasSize(2);
    assertThat(instances.get(0).get("name").asText()).isEqualTo("reviews-v1-0");
    assertThat(instances.get(1).get("name").asText()).isEqualTo("reviews-v2-0");
    String v2 = instances.get(1).get("id").asText();
    assertThat(v2).isEqualTo(EntityIds.instanceId(reviews, "reviews-v2-0"));
    assertThat(instances.get(1).get("attributes").toString()).contains("\"pod\"", "reviews-v2-0");
    assertThat(sextant.data("{ getInstance(instanceId: \"" + v2 + "\") { name } }")
        .get("getInstance").get("name").asText())
        .isEqualTo("reviews-v2-0");

    JsonNode endpoints = sextant.data("{ findEndpoint(serviceId: \"" + reviews
        + "\", keyword: \"reviews\", limit: 10) { id name } }")
        .get("findEndpoint");
    assertThat(endpoints).hasSize(1);
    assertThat(endpoints.get(0).get("name").asText()).isEqualTo("GET:/reviews/0");
    String endpointId = endpoints.get(0).get("id").asText();
    assertThat(endpointId).isEqualTo(EntityIds.endpointId(reviews, "GET:/reviews/0"));
    JsonNode info = sextant.data("{ getEndpointInfo(endpointId: \"" + endpointId
        + "\") { id name serviceId serviceName } }")
        .get("getEndpointInfo");
    assertThat(info.get("serviceId").asText()).isEqualTo(reviews);
    assertThat(info.get("serviceName").asText()).isEqualTo("reviews");
    JsonNode deps = sextant.data("{ getEndpointDependencies(endpointId: \"" + endpointId + "\", duration: " + duration()
        + ") { nodes { id } calls { id } } }").get("getEndpointDependencies");
    assertThat(deps.get("nodes")).isEmpty();
    assertThat(deps.get("calls")).isEmpty();
  }

  @Test
  public void globalTopologyHasEveryEdgeWithItsDetectPoints() throws Exception {
    JsonNode topo = sextant.data("{ getGlobalTopology(duration: " + duration() + ", layer: \"MESH\")"
        + " { nodes { id name type isReal } "
        + "calls { id source target detectPoints sourceComponents targetComponents } } }").get("getGlobalTopology");
    TreeSet<String> edges = new TreeSet<>();
    for (JsonNode c : topo.get("calls")) {
      assertThat(c.get("id").asText()).isEqualTo(c.get("source").asText() + "-" + c.get("target").asText());
      edges.add(name(c.get("source")) + "->" + name(c.get("target")) + " " + c.get("detectPoints") + " "
          + c.get("sourceComponents") + c.get("targetComponents"));
    }
    // Both sidecars reported mTLS on the HTTP and gRPC calls, so both sides carry mtls (SkyWalking
    // adds the TLS component per side); the TCP flows said NONE. gRPC is SkyWalking's "GRPC".
    assertThat(edges).containsExactly(
        "istio-ingressgateway->productpage [\"CLIENT\",\"SERVER\"] [\"http\",\"mtls\"][\"http\",\"mtls\"]",
        "productpage->details [\"CLIENT\",\"SERVER\"] [\"http\",\"mtls\"][\"http\",\"mtls\"]",
        "productpage->reviews [\"CLIENT\",\"SERVER\"] [\"http\",\"mtls\"][\"http\",\"mtls\"]",
        "reviews->mongodb [\"CLIENT\",\"SERVER\"] [\"tcp\"][\"tcp\"]",
        "reviews->ratings [\"CLIENT\",\"SERVER\"] [\"GRPC\",\"mtls\"][\"GRPC\",\"mtls\"]");
    assertThat(topo.get("nodes")).hasSize(6);

    JsonNode one = sextant.data("{ getServiceTopology(serviceId: \"" + sid("reviews") + "\", duration: " + duration()
        + ") { nodes { name } calls { id } } }").get("getServiceTopology");
    assertThat(one.get("calls")).hasSize(3);
    JsonNode many = sextant.data("{ getServicesTopology(serviceIds: [\"" + sid("ratings") + "\", \"" + sid("details")
        + "\"], duration: " + duration() + ") { calls { id } } }").get("getServicesTopology");
    assertThat(many.get("calls")).hasSize(2);

    JsonNode inst = sextant.data("{ getServiceInstanceTopology(clientServiceId: \"" + sid("productpage")
        + "\", serverServiceId: \""
        + sid("reviews") + "\", duration: " + duration() + ") { nodes { name serviceName } calls { detectPoints } } }")
        .get("getServiceInstanceTopology");
    TreeSet<String> nodes = new TreeSet<>();
    inst.get("nodes").forEach(n -> nodes.add(n.get("serviceName").asText() + "/" + n.get("name").asText()));
    assertThat(nodes).containsExactly("productpage/productpage-v1-0", "reviews/reviews-v1-0", "reviews/reviews-v2-0");
    assertThat(inst.get("calls")).hasSize(2);
  }

  private static String name(JsonNode serviceId) {
    return EntityIds.parseServiceId(serviceId.asText()).name();
  }

  @Test
  public void serviceMetricsAreExact() throws Exception {
    String pp = "serviceName: \"productpage\", normal: true";
    assertThat(exec("service_cpm", pp)).containsExactly("10");
    assertThat(exec("service_resp_time", pp)).containsExactly("55");
    assertThat(exec("service_sla", pp)).containsExactly("8000");
    assertThat(exec("service_apdex", pp)).containsExactly("8000");
    assertThat(exec("service_sla/100", pp)).containsExactly("80");
    assertThat(exec("avg(service_cpm)", pp)).containsExactly("10");
    assertThat(exec("service_sidecar_internal_req_latency_nanos", pp)).containsExactly("5500");
    assertThat(exec("service_sidecar_internal_resp_latency_nanos", pp)).containsExactly("11000");
    assertThat(exec("service_cpm", "serviceName: \"reviews\"")).containsExactly("8");
    assertThat(exec("service_sla", "serviceName: \"reviews\"")).containsExactly("8750");
    assertThat(exec("service_resp_time", "serviceName: \"details\"")).containsExactly("7");
    assertThat(exec("service_cpm", "serviceName: \"ratings\"")).containsExactly("4");
    assertThat(exec("service_throughput_received", "serviceName: \"mongodb\"")).containsExactly("3000");
    assertThat(exec("service_throughput_sent", "serviceName: \"mongodb\"")).containsExactly("600");
    // The gateway only ever reported client side: it has no service metrics of its own.
    assertThat(exec("service_cpm", "serviceName: \"istio-ingressgateway\"")).containsExactly((String) null);
  }

  @Test
  public void percentilesAreWithinTheSketchError() throws Exception {
    List<String> p = exec("service_percentile{p='50,75,90,95,99'}", "serviceName: \"productpage\"");
    int[] latencies = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    double[] ranks = {0.5, 0.75, 0.9, 0.95, 0.99};
    assertThat(p).hasSize(5);
    for (int i = 0; i < ranks.length; i++) {
      double expected = latencies[(int) Math.floor(ranks[i] * (latencies.length - 1))];
      assertThat(Double.parseDouble(p.get(i))).isCloseTo(expected, within(expected * 0.01 + 0.5));
    }
    assertThat(exec("service_percentile{p='99'}", "serviceName: \"productpage\"")).hasSize(1);
  }

  @Test
  public void instanceEndpointAndRelationMetricsAreExact() throws Exception {
    assertThat(exec("service_instance_cpm", "serviceName: \"reviews\", serviceInstanceName: \"reviews-v1-0\""))
        .containsExactly("4");
    assertThat(exec("service_instance_sla", "serviceName: \"reviews\", serviceInstanceName: \"reviews-v1-0\""))
        .containsExactly("7500");
    assertThat(exec("service_instance_resp_time", "serviceName: \"reviews\", serviceInstanceName: \"reviews-v2-0\""))
        .containsExactly("45");
    assertThat(exec("endpoint_cpm", "serviceName: \"reviews\", endpointName: \"GET:/reviews/0\"")).containsExactly("8");
    assertThat(exec("endpoint_sla", "serviceName: \"productpage\", endpointName: \"GET:/productpage\""))
        .containsExactly("8000");

    String rel = "serviceName: \"productpage\", destServiceName: \"reviews\"";
    assertThat(exec("service_relation_client_cpm", rel)).containsExactly("8");
    assertThat(exec("service_relation_server_cpm", rel)).containsExactly("8");
    assertThat(exec("service_relation_client_call_sla", rel)).containsExactly("8750");
    assertThat(exec("service_relation_server_resp_time", rel)).containsExactly("45");
    assertThat(exec("service_client_sidecar_internal_req_latency_nanos", rel)).containsExactly("2500");
    assertThat(exec("service_relation_client_received", "serviceName: \"reviews\", destServiceName: \"mongodb\""))
        .containsExactly("3000");
    String instRel = "serviceName: \"productpage\", serviceInstanceName: \"productpage-v1-0\","
        + " destServiceName: \"reviews\", destServiceInstanceName: \"reviews-v1-0\"";
    assertThat(exec("service_instance_relation_server_cpm", instRel)).containsExactly("4");
    assertThat(exec("service_instance_relation_client_call_sla", instRel)).containsExactly("7500");
  }

  @Test
  public void hourRollupMatchesTheMinutes() throws Exception {
    String h = HOUR.format(Instant.ofEpochMilli(time));
    String hour = "{start: \"" + h + "\", end: \"" + h + "\", step: HOUR}";
    // cpm over an hour is calls / 60 (integer, as SkyWalking's); the raw count survives as sla/resp_time.
    assertThat(exec("service_resp_time", "serviceName: \"productpage\"", hour)).containsExactly("55");
    assertThat(exec("service_sla", "serviceName: \"reviews\"", hour)).containsExactly("8750");
    assertThat(exec("service_throughput_received", "serviceName: \"mongodb\"", hour)).containsExactly("3000");
  }

  @Test
  public void grpcHealthIsServing() {
    io.grpc.health.v1.HealthGrpc.HealthBlockingStub health = com.linecorp.armeria.client.grpc.GrpcClients
        .builder("http://127.0.0.1:" + sextant.grpcPort).build(io.grpc.health.v1.HealthGrpc.HealthBlockingStub.class);
    assertThat(health.check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  public void badQueriesGetClearErrors() throws Exception {
    JsonNode unsupported = sextant.graphql("{ getAllDatabases(duration: " + duration() + ") { id } }");
    assertThat(unsupported.get("errors").get(0).get("message").asText())
        .isEqualTo("operation 'getAllDatabases' is not supported by Sextant: "
            + "database monitoring is outside Sextant's scope (a service-mesh backend)");
    JsonNode alarms = sextant.graphql("{ getAlarm(duration: " + duration()
        + ", paging: {pageNum: 1, pageSize: 10}) { msgs { id } } }");
    assertThat(alarms.has("errors")).as("no rules fired: an empty list, not an error").isFalse();
    assertThat(alarms.get("data").get("getAlarm").get("msgs")).isEmpty();
    JsonNode traces = sextant.graphql("{ queryBasicTraces(condition: {queryDuration: " + duration()
        + ", traceState: ALL, queryOrder: BY_START_TIME, paging: {pageNum: 1, pageSize: 10}})"
        + " { traces { segmentId } } }");
    assertThat(traces.get("errors").get(0).get("message").asText())
        .isEqualTo("operation 'queryBasicTraces' is not supported by Sextant: "
            + "traces are outside Sextant's scope (a service-mesh backend)");
    JsonNode unknownMetric = sextant.data("{ r: execExpression(expression: \"nope_cpm\", entity: {serviceName: \"x\"},"
        + " duration: " + duration() + ") { type error } }").get("r");
    assertThat(unknownMetric.get("type").asText()).isEqualTo("UNKNOWN");
    assertThat(unknownMetric.get("error").asText()).contains("Metric: [nope_cpm] does not exist.");
    JsonNode badDuration = sextant.graphql(
        "{ getGlobalTopology(duration: {start: \"yesterday\", end: \"x\", step: MINUTE}) { calls { id } } }");
    assertThat(badDuration.get("errors").get(0).get("message").asText()).contains("yyyy-MM-dd HHmm");
    JsonNode badId = sextant.graphql("{ getService(serviceId: \"not-an-id\") { name } }");
    assertThat(badId.get("errors").get(0).get("message").asText()).contains("malformed service id");
    assertThat(sextant.data("{ version }").get("version").asText()).startsWith("10.1.0");
  }

  @Test
  public void aDashboardOfExpressionsInOneRequestAnswersEachAsAlone() throws Exception {
    // The UI asks for a dashboard's widgets as aliased execExpression fields of one request; the
    // server runs them at once. Each must answer exactly what it answers alone, errors included.
    List<String[]> widgets = List.of(
        new String[] {"service_cpm", "serviceName: \"productpage\""},
        new String[] {"service_resp_time", "serviceName: \"productpage\""},
        new String[] {"service_sla/100", "serviceName: \"productpage\""},
        new String[] {"service_percentile{p='50,99'}", "serviceName: \"productpage\""},
        new String[] {"service_cpm", "serviceName: \"reviews\""},
        new String[] {"nope_cpm", "serviceName: \"reviews\""},
        new String[] {"endpoint_cpm", "serviceName: \"reviews\", endpointName: \"GET:/reviews/0\""},
        new String[] {"service_relation_server_resp_time",
            "serviceName: \"productpage\", destServiceName: \"reviews\""});
    String fields = " { type error results { metric { labels { key value } } values { id value } } }";
    StringBuilder dashboard = new StringBuilder("{ version");
    for (int i = 0; i < widgets.size(); i++) {
      dashboard.append(" e").append(i).append(": ").append(expression(widgets.get(i), fields));
    }
    JsonNode together = sextant.data(dashboard.append(" }").toString());
    assertThat(together.get("version").asText()).startsWith("10.1.0");
    for (int i = 0; i < widgets.size(); i++) {
      JsonNode alone = sextant.data("{ r: " + expression(widgets.get(i), fields) + " }").get("r");
      assertThat(together.get("e" + i)).as(widgets.get(i)[0]).isEqualTo(alone);
    }
    assertThat(together.get("e0").get("results").get(0).get("values").get(0).get("value").asText()).isEqualTo("10");
    assertThat(together.get("e4").get("results").get(0).get("values").get(0).get("value").asText()).isEqualTo("8");
    assertThat(together.get("e5").get("error").asText()).contains("Metric: [nope_cpm] does not exist.");
    assertThat(together.get("e7").get("results").get(0).get("values").get(0).get("value").asText()).isEqualTo("45");
  }

  private String expression(String[] widget, String fields) {
    return "execExpression(expression: \"" + widget[0] + "\", entity: {" + widget[1] + "}, duration: " + duration()
        + ")" + fields;
  }
}
