package io.sextant.server.mesh;

import static io.sextant.server.testing.Istio.inbound;
import static io.sextant.server.testing.Istio.outbound;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClientStubFactory;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
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
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Istio access logs over real gRPC (Envoy's service and Satellite's twin) come out as the same
 * services, topology and metrics as mesh telemetry, and every entry that cannot be attributed is
 * counted by reason.
 */
class AlsEndToEndIT {
  static final Istio.Pod GATEWAY =
      new Istio.Pod("istio-ingressgateway-5d9f7", "istio-system", "istio-ingressgateway", "10.0.0.2");
  static final Istio.Pod PRODUCTPAGE =
      new Istio.Pod("productpage-v1-6b746f74dc-9stvs", "default", "productpage", "10.0.1.1");
  static final Istio.Pod REVIEWS_1 = new Istio.Pod("reviews-v1-545db77b95-2ps7q", "default", "reviews", "10.0.1.2");
  static final Istio.Pod REVIEWS_2 = new Istio.Pod("reviews-v2-7bf8c9648f-4nx8k", "default", "reviews", "10.0.1.3");
  static final Istio.Pod MONGODB = new Istio.Pod("mongodb-v1-0", "default", "mongodb", "10.0.1.9");
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);

  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of(
      "receiver.als.endpointRules", "GET:/reviews/\\d+ => GET:/reviews/{id}",
      "receiver.als.endpointBudgetPerService", "3"));
  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    sextant = SEXTANT.server();
    time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;

    // The gateway: 10 requests to productpage, 2 of them 503.
    List<HTTPAccessLogEntry> gateway = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      gateway.add(outbound(time + i, GATEWAY, PRODUCTPAGE, "/productpage?u=" + i, i < 2 ? 503 : 200, 20 + i));
    }
    // productpage's sidecar: the same 10 inbound (latency 10..100 ms), and 6 calls out to reviews.
    List<HTTPAccessLogEntry> productpage = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      productpage.add(inbound(time + i, GATEWAY, PRODUCTPAGE, "/productpage?u=" + i, i < 2 ? 503 : 200, 10L * (i + 1)));
    }
    for (int i = 0; i < 6; i++) {
      productpage.add(outbound(time + i, PRODUCTPAGE, i % 2 == 0 ? REVIEWS_1 : REVIEWS_2, "/reviews/" + i,
          i == 0 ? 404 : 200, 30));
    }
    productpage.add(Istio.outboundUnknown(time, PRODUCTPAGE, "93.184.216.34"));
    productpage.add(Istio.outboundFailed(time, PRODUCTPAGE, REVIEWS_1, "/reviews/99"));
    // reviews' sidecars: the 6 inbound calls; more endpoints than the budget of 3.
    List<HTTPAccessLogEntry> reviews = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      reviews.add(inbound(time + i, PRODUCTPAGE, i % 2 == 0 ? REVIEWS_1 : REVIEWS_2, "/reviews/" + i,
          i == 0 ? 404 : 200, 25));
    }
    for (String path : List.of("/health", "/metrics", "/admin", "/debug")) {
      reviews.add(inbound(time, PRODUCTPAGE, REVIEWS_1, path, 200, 5));
    }

    // Each proxy has its own stream; Envoy sends its identifier on the first message only.
    assertThat(envoy(List.of(message(GATEWAY.gateway(), gateway, List.of()))).getCode()).isEqualTo(Status.Code.OK);
    assertThat(envoy(List.of(
        message(PRODUCTPAGE.sidecar(), productpage.subList(0, 8), List.of()),
        message(null, productpage.subList(8, productpage.size()), List.of()),
        message(null, List.of(), List.of(Istio.tcpOutbound(time, REVIEWS_1, MONGODB, 1200, 300))))).getCode())
        .isEqualTo(Status.Code.OK);
    // (productpage also holds a TCP connection to mongodb, logged by its sidecar above.)
    // reviews' sidecar streams through Satellite, which repeats the identifier on every message.
    assertThat(satellite(List.of(
        message(REVIEWS_1.sidecar(), reviews.subList(0, 5), List.of()),
        message(REVIEWS_1.sidecar(), reviews.subList(5, reviews.size()), List.of()))).getCode())
        .isEqualTo(Status.Code.OK);
    // A proxy whose node carries no metadata: nothing can be attributed.
    assertThat(envoy(List.of(message(Node.newBuilder().setId("sidecar~10.9.9.9~x.y~y.svc.cluster.local").build(),
        gateway.subList(0, 3), List.of()))).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
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

  static Status envoy(List<StreamAccessLogsMessage> messages) throws Exception {
    AccessLogServiceGrpc.AccessLogServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(AccessLogServiceGrpc.AccessLogServiceStub.class);
    return TestServer.clientStream(stub::streamAccessLogs, messages);
  }

  static Status satellite(List<StreamAccessLogsMessage> messages) throws Exception {
    MethodDescriptor<StreamAccessLogsMessage, StreamAccessLogsResponse> method =
        AccessLogServiceGrpc.getStreamAccessLogsMethod().toBuilder()
            .setFullMethodName("satellite.envoy.accesslog.v3.SatelliteAccessLogService/StreamAccessLogs").build();
    ServiceDescriptor descriptor =
        ServiceDescriptor.newBuilder("satellite.envoy.accesslog.v3.SatelliteAccessLogService")
            .addMethod(method).build();
    Channel channel = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .clientStubFactory(new GrpcClientStubFactory() {
          @Override
          public ServiceDescriptor findServiceDescriptor(Class<?> clientType) {
            return descriptor;
          }

          @Override
          public Object newClientStub(Class<?> clientType, Channel ch) {
            return ch;
          }
        })
        .build(Channel.class);
    return TestServer.clientStream(
        (StreamObserver<StreamAccessLogsResponse> out) ->
            ClientCalls.asyncClientStreamingCall(channel.newCall(method, CallOptions.DEFAULT), out),
        messages);
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

  /** booster-ui 10.1 to 10.4's Log widget ({@code src/graphql/fragments/log.ts}), as it sends it. */
  private static final String BOOSTER_LOGS = """
      query queryLogs($condition: LogQueryCondition) {
          queryLogs(condition: $condition) {
              logs {
                serviceName
                serviceId
                serviceInstanceName
                serviceInstanceId
                endpointName
                endpointId
                traceId
                timestamp
                contentType
                content
                tags {
                  key
                  value
                }
              }
          }}""";

  /** swctl 0.14's {@code logs list} ({@code assets/graphqls/logs/Logs.graphql}). */
  private static final String SWCTL_LOGS = """
      query ($condition: LogQueryCondition!) {
          result: queryLogs(condition: $condition) {
              logs {
                  serviceName
                  serviceId
                  serviceInstanceName
                  serviceInstanceId
                  endpointName
                  endpointId
                  traceId
                  timestamp
                  contentType
                  content
                  tags {
                      key
                      value
                  }
              }
          }
      }""";

  private static Map<String, Object> minutes() {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return Map.of("start", m, "end", m, "step", "MINUTE");
  }

  /** The logs booster-ui shows for a condition (it leaves out what "All" selects). */
  private static List<String> boosterLogs(Map<String, Object> condition) throws Exception {
    Map<String, Object> c = new java.util.HashMap<>(condition);
    c.put("queryDuration", minutes());
    c.putIfAbsent("keywordsOfContent", List.of());
    c.putIfAbsent("excludingKeywordsOfContent", List.of());
    c.put("paging", Map.of("pageNum", 1, "pageSize", 21));
    List<String> out = new ArrayList<>();
    for (JsonNode log : sextant.data(BOOSTER_LOGS, Map.of("condition", c)).get("queryLogs").get("logs")) {
      JsonNode tags = log.get("tags");
      StringBuilder t = new StringBuilder();
      tags.forEach(tag -> t.append(' ').append(tag.get("key").asText()).append('=')
          .append(tag.get("value").asText()));
      out.add(log.get("serviceName").asText() + "/" + log.get("serviceInstanceName").asText() + " "
          + log.get("endpointName").asText("") + t);
      // booster-ui parses a JSON log to show it.
      assertThat(log.get("contentType").asText()).isEqualTo("JSON");
      assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(log.get("content").asText()).isObject())
          .isTrue();
    }
    return out;
  }

  @Test
  void failedRequestsAreLogsOfTheReportingProxyAsBoosterUiAsksForThem() throws Exception {
    String productpage = EntityIds.serviceId("productpage.default", true);
    assertThat(sextant.data("query queryLogsByKeywords { support: supportQueryLogsByKeywords }")
        .get("support").asBoolean()).isTrue();
    // productpage's sidecar: two inbound 503s (its endpoint), a 404 and a connection failure going out.
    assertThat(boosterLogs(Map.of("serviceId", productpage))).containsExactlyInAnyOrder(
        "productpage.default/" + PRODUCTPAGE.name() + " GET:/productpage level=ERROR status.code=503",
        "productpage.default/" + PRODUCTPAGE.name() + " GET:/productpage level=ERROR status.code=503",
        "productpage.default/" + PRODUCTPAGE.name() + "  level=WARN status.code=404",
        "productpage.default/" + PRODUCTPAGE.name() + "  level=ERROR response.flag=UF");
    String endpoint = EntityIds.endpointId(productpage, "GET:/productpage");
    assertThat(boosterLogs(Map.of("serviceId", productpage, "endpointId", endpoint))).hasSize(2);
    assertThat(boosterLogs(Map.of("serviceId", productpage, "tags",
        List.of(Map.of("key", "status.code", "value", "404"))))).hasSize(1);
    // Across services: reviews' own 404 beside productpage's.
    assertThat(boosterLogs(Map.of("tags", List.of(Map.of("key", "status.code", "value", "404"))))).hasSize(2);
    assertThat(boosterLogs(Map.of("serviceId", productpage, "keywordsOfContent",
        List.of("upstream connection failure")))).singleElement().asString().endsWith("response.flag=UF");
  }

  @Test
  void swctlFindsTheConnectionFailureByItsFlagAndTheTagsComplete() throws Exception {
    // swctl sends empty ids and an empty trace id for what it is not given.
    Map<String, Object> condition = Map.of("serviceId", "", "serviceInstanceId", "", "endpointId", "",
        "relatedTrace", Map.of("traceId", ""), "tags", List.of(Map.of("key", "response.flag", "value", "UF")),
        "queryDuration", minutes(), "paging", Map.of("pageNum", 1, "pageSize", 15));
    JsonNode logs = sextant.data(SWCTL_LOGS, Map.of("condition", condition)).get("result").get("logs");
    assertThat(logs).hasSize(1);
    assertThat(logs.get(0).get("content").asText()).contains("\"responseFlags\":\"UF\"",
        "UF: upstream connection failure");

    Map<String, Object> duration = Map.of("duration", minutes());
    assertThat(sextant.data("query queryTagKeys($duration: Duration!) {"
        + " tagKeys: queryLogTagAutocompleteKeys(duration: $duration)}", duration).get("tagKeys").toString())
        .contains("level", "status.code", "response.flag");
    assertThat(sextant.data("query queryTagValues($tagKey: String!, $duration: Duration!) {"
        + " tagValues: queryLogTagAutocompleteValues(tagKey: $tagKey, duration: $duration)}",
        Map.of("tagKey", "status.code", "duration", minutes())).get("tagValues").toString())
        .contains("404", "503");
  }

  @Test
  void servicesAreNamedAsSkyWalkingNamesThem() throws Exception {
    TreeSet<String> names = new TreeSet<>();
    sextant.data("{ listServices(layer: \"MESH\") { name } }").get("listServices")
        .forEach(s -> names.add(s.get("name").asText()));
    // mongodb is only named by productpage's outbound entries (its own side never reports): a topology
    // node, not a listed service, as in SkyWalking 10.1.
    assertThat(names).containsExactly("istio-ingressgateway.istio-system", "productpage.default", "reviews.default");
    JsonNode instances = sextant.data("{ listInstances(duration: " + duration() + ", serviceId: \""
        + EntityIds.serviceId("reviews.default", true) + "\") { name attributes { name value } } }")
        .get("listInstances");
    // Only reviews-v1's sidecar sends logs here (its node reports every inbound entry); reviews-v2 is
    // only named by productpage's outbound entries, so it is not a listed instance.
    assertThat(instances).hasSize(1);
    assertThat(instances.get(0).get("name").asText()).isEqualTo(REVIEWS_1.name());
    assertThat(instances.get(0).get("attributes").toString()).contains("\"namespace\"", "\"default\"");
  }

  @Test
  void topologyHasEveryEdgeWithItsDetectPoints() throws Exception {
    JsonNode calls = sextant.data("{ getGlobalTopology(duration: " + duration() + ", layer: \"MESH\")"
        + " { calls { source target detectPoints } } }")
        .get("getGlobalTopology").get("calls");
    TreeSet<String> edges = new TreeSet<>();
    calls.forEach(c -> edges.add(EntityIds.parseServiceId(c.get("source").asText()).name() + "->"
        + EntityIds.parseServiceId(c.get("target").asText()).name() + " " + c.get("detectPoints")));
    // The gateway's callers are outside the mesh: SkyWalking's UNKNOWN, seen from the gateway's side.
    assertThat(edges).containsExactly(
        "UNKNOWN->istio-ingressgateway.istio-system [\"SERVER\"]",
        "istio-ingressgateway.istio-system->productpage.default [\"CLIENT\",\"SERVER\"]",
        "productpage.default->mongodb.default [\"CLIENT\"]",
        "productpage.default->reviews.default [\"CLIENT\",\"SERVER\"]");
  }

  @Test
  void metricsAreExact() throws Exception {
    String pp = "serviceName: \"productpage.default\"";
    assertThat(value("service_cpm", pp)).isEqualTo("10");
    assertThat(value("service_resp_time", pp)).isEqualTo("55");
    assertThat(value("service_sla", pp)).isEqualTo("8000");
    // The gateway's own server side (requests entering the mesh): 10, latency to last byte sent.
    assertThat(value("service_cpm", "serviceName: \"istio-ingressgateway.istio-system\"")).isEqualTo("10");
    String gwToPp = "serviceName: \"istio-ingressgateway.istio-system\", destServiceName: \"productpage.default\"";
    assertThat(value("service_relation_client_cpm", gwToPp)).isEqualTo("10");
    assertThat(value("service_relation_client_resp_time", gwToPp)).isEqualTo("24"); // (20+..+29)/10 = 24.5
    assertThat(value("service_relation_server_cpm", gwToPp)).isEqualTo("10");
    String ppToReviews = "serviceName: \"productpage.default\", destServiceName: \"reviews.default\"";
    // 6 answered + 1 that never got a response; client side counts 4xx and the failure as errors.
    assertThat(value("service_relation_client_cpm", ppToReviews)).isEqualTo("7");
    assertThat(value("service_relation_client_call_sla", ppToReviews)).isEqualTo("7142"); // 5 of 7
    assertThat(value("service_relation_server_cpm", ppToReviews)).isEqualTo("10");
    // Server side: a 404 is not a server failure.
    assertThat(value("service_sla", "serviceName: \"reviews.default\"")).isEqualTo("10000");
    assertThat(value("service_relation_client_received",
        "serviceName: \"productpage.default\", destServiceName: \"mongodb.default\""))
        .isEqualTo("1200");
  }

  @Test
  void endpointsAreGroupedAndBudgeted() throws Exception {
    TreeSet<String> names = new TreeSet<>();
    sextant.data("{ findEndpoint(serviceId: \"" + EntityIds.serviceId("reviews.default", true)
        + "\", limit: 100) { name } }")
        .get("findEndpoint").forEach(e -> names.add(e.get("name").asText()));
    // /reviews/0..99 group into one endpoint; the budget of 3 admits two more, the rest overflow.
    assertThat(names).containsExactly("<overflow>", "GET:/health", "GET:/metrics", "GET:/reviews/{id}");
    TreeSet<String> pp = new TreeSet<>();
    sextant.data("{ findEndpoint(serviceId: \"" + EntityIds.serviceId("productpage.default", true)
        + "\", limit: 100) { name } }")
        .get("findEndpoint").forEach(e -> pp.add(e.get("name").asText()));
    assertThat(pp).containsExactly("GET:/productpage"); // query strings never make endpoints
  }

  @Test
  void everyUnattributedEntryIsCountedByReason() throws Exception {
    String metrics = sextant.get("/metrics");
    assertThat(metrics).contains("sextant_als_entries_dropped_total{reason=\"destination_unresolved\"} 1.0");
    assertThat(metrics).contains("sextant_als_entries_dropped_total{reason=\"unknown_node\"} 3.0");
    assertThat(metrics).contains("sextant_als_entries_total{kind=\"http\"} 41.0");
    assertThat(metrics).contains("sextant_als_entries_total{kind=\"tcp\"} 1.0");
    assertThat(metrics).contains("sextant_als_endpoint_overflow_total 2.0");
  }
}
