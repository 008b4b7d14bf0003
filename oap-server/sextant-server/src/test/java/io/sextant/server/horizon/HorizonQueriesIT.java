package io.sextant.server.horizon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Horizon UI v0.7.0's backend-for-frontend against a real Sextant: after bookinfo mesh traffic over
 * real gRPC, the GraphQL documents Horizon's BFF sends ({@code apps/bff/src}) go over real HTTP, with
 * the same operation names, selection sets and argument shapes (aliased batches built as Horizon
 * builds them), and every answer must carry data and no {@code errors}. Horizon's {@code graphqlPost}
 * throws on any entry in {@code errors}, so one unsupported field, argument or metric fails the whole
 * document: the shell banner, the sidebar, a landing table or a batch of dashboard widgets goes blank.
 * An unknown metric must therefore answer {@code type: UNKNOWN} with an {@code error}, not a GraphQL
 * error, and a relation entity without {@code scope} must be answered from its metric's name.
 */
class HorizonQueriesIT {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECOND =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmmss").withZone(ZoneOffset.UTC);

  /** http/query/info.ts: one document, polled every 30 s by {@code /api/oap/info}. */
  private static final String OAP_INFO = """
        query HorizonOapInfo {
          version
          time: getTimeInfo {
            timezone
            currentTimestamp
          }
          health: checkHealth {
            score
            details
          }
        }
      """;

  /** util/window.ts: the server's UTC offset, for every route that builds a window. */
  private static final String SERVER_TIME = """
        query HorizonServerTime {
          time: getTimeInfo {
            timezone
          }
        }
      """;

  /** http/query/menu.ts: the sidebar; listLayers and listLayerLevels in one document. */
  private static final String MENU = """
        query HorizonMenu {
          layers: listLayers
          levels: listLayerLevels {
            layer
            level
          }
        }
      """;

  /** logic/oap/capabilities.ts: whether queryAlarms exists (else getAlarm and client-side layers). */
  private static final String CAPABILITIES = """
        query HorizonOapCapabilities {
          __type(name: "Query") { fields { name } }
        }
      """;

  /** logic/oap/backend.ts: the storage probe that enables the cold-stage UI. */
  private static final String BACKEND_PROBE = """
        query HorizonOapBackendProbe {
          records: getRecordsTTL {
            normal trace zipkinTrace log browserErrorLog
            coldNormal coldTrace coldZipkinTrace coldLog coldBrowserErrorLog
          }
          metrics: getMetricsTTL {
            metadata minute hour day
            coldMinute coldHour coldDay
          }
        }
      """;

  /** http/query/ttl.ts: the Data-retention page. */
  private static final String TTL = """
        query HorizonOapTtl {
          records: getRecordsTTL {
            normal trace zipkinTrace log browserErrorLog
            coldNormal coldTrace coldZipkinTrace coldLog coldBrowserErrorLog
          }
          metrics: getMetricsTTL {
            metadata minute hour day
            coldMinute coldHour coldDay
          }
        }
      """;

  /** logic/services/service-layer-catalog.ts: the layers the catalog then fans out over. */
  private static final String CATALOG_LAYERS = """
        query HorizonServiceCatalogLayers {
          layers: listLayers
        }
      """;

  /** http/query/landing.ts: a layer's landing table. */
  private static final String LANDING_SERVICES = """
        query LandingServices($layer: String!) {
          services: listServices(layer: $layer) {
            id
            value: name
            shortName
            group
            normal
          }
        }
      """;

  /** http/query/instance.ts: a service's instances tab. */
  private static final String LAYER_INSTANCES = """
        query LayerInstances($serviceId: ID!, $duration: Duration!) {
          instances: listInstances(serviceId: $serviceId, duration: $duration) {
            id
            name
            language
            attributes {
              name
              value
            }
          }
        }
      """;

  /** http/query/endpoint.ts: a service's endpoints tab (keyword search, limit 20..50). */
  private static final String LAYER_ENDPOINTS = """
        query LayerEndpoints($serviceId: ID!, $keyword: String!, $limit: Int!, $duration: Duration!) {
          endpoints: findEndpoint(serviceId: $serviceId, keyword: $keyword, limit: $limit, duration: $duration) {
            id
            name
          }
        }
      """;

  /** http/query/topology.ts: one breadth-first step of a layer's topology. */
  private static final String SERVICES_TOPOLOGY = """
        query ServicesTopology($duration: Duration!, $serviceIds: [ID!]!) {
          topology: getServicesTopology(duration: $duration, serviceIds: $serviceIds) {
            nodes { id name type isReal layers }
            calls { id source target detectPoints }
          }
        }
      """;

  /** http/query/instance-topology.ts: the instances behind one call of the topology. */
  private static final String INSTANCE_TOPOLOGY = """
        query InstanceTopology($clientServiceId: ID!, $serverServiceId: ID!, $duration: Duration!) {
          topology: getServiceInstanceTopology(
            clientServiceId: $clientServiceId
            serverServiceId: $serverServiceId
            duration: $duration
          ) {
            nodes { id name serviceName serviceId isReal }
            calls { id source target detectPoints }
          }
        }
      """;

  /** logic/oap/hierarchy.ts: the topology side panel's hierarchy. */
  private static final String SERVICE_HIERARCHY = """
        query HorizonServiceHierarchy($serviceId: ID!, $layer: String!) {
          hierarchy: getServiceHierarchy(serviceId: $serviceId, layer: $layer) {
            relations {
              upperService { id name layer normal }
              lowerService { id name layer normal }
            }
          }
        }
      """;

  /** http/query/alarms.ts: the Alarms page and the overview alarm widgets, when queryAlarms exists. */
  private static final String QUERY_ALARMS = """
        query HorizonQueryAlarms($condition: AlarmQueryCondition!) {
          queryAlarms(condition: $condition) {
            msgs {
              id startTime recoveryTime scope name message
              tags { key value }
              snapshot {
                expression
                metrics {
                  name
                  results {
                    metric { labels { key value } }
                    values { id value traceID }
                  }
                }
              }
            }
          }
        }
      """;

  /** http/query/alarms.ts: the topbar badge's count, when queryAlarms exists. */
  private static final String COUNT_QUERY_ALARMS = """
        query HorizonCountQueryAlarms($condition: AlarmQueryCondition!) {
          queryAlarms(condition: $condition) { msgs { id startTime recoveryTime } }
        }
      """;

  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());
  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void sendBookinfo() throws Exception {
    sextant = SEXTANT.server();
    // Three minutes ago, one second into the minute, so every call is in one minute of Horizon's window.
    time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;
    assertThat(sextant.stream(Bookinfo.standard(time).messages(7)).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  @Test
  void theShellsInfoDocumentAnswersVersionTimeAndHealth() throws Exception {
    JsonNode data = horizon(OAP_INFO);
    assertThat(data.path("version").asText()).isNotBlank();
    assertThat(data.path("time").path("timezone").asText()).matches("^[+-]\\d{4}$");
    assertThat(data.path("time").path("currentTimestamp").asLong()).isPositive();
    assertThat(data.path("health").path("score").isNumber()).isTrue();
    assertThat(data.path("health").has("details")).isTrue();

    assertThat(horizon(SERVER_TIME).path("time").path("timezone").asText()).matches("^[+-]\\d{4}$");
  }

  @Test
  void theMenuListsLayersAndTheirLevelsInOneDocument() throws Exception {
    JsonNode data = horizon(MENU);
    assertThat(texts(data.path("layers"))).contains("MESH");
    assertThat(data.path("levels").isArray()).isTrue();
    assertThat(data.path("levels")).isNotEmpty();
    data.path("levels").forEach(l -> {
      assertThat(l.path("layer").asText()).isNotBlank();
      assertThat(l.path("level").isInt()).isTrue();
    });
  }

  @Test
  void theCapabilitiesProbeFindsQueryAlarms() throws Exception {
    JsonNode fields = horizon(CAPABILITIES).path("__type").path("fields");
    List<String> names = new ArrayList<>();
    fields.forEach(f -> names.add(f.path("name").asText()));
    assertThat(names).contains("queryAlarms", "execExpression", "listServices", "getServicesTopology");
  }

  @Test
  void theTtlDocumentsIncludeMetricsMetadata() throws Exception {
    for (String query : List.of(BACKEND_PROBE, TTL)) {
      JsonNode data = horizon(query);
      for (String f : List.of("normal", "trace", "zipkinTrace", "log", "browserErrorLog", "coldNormal", "coldTrace",
          "coldZipkinTrace", "coldLog", "coldBrowserErrorLog")) {
        assertThat(data.path("records").path(f).isIntegralNumber()).as("records.%s", f).isTrue();
      }
      for (String f : List.of("metadata", "minute", "hour", "day", "coldMinute", "coldHour", "coldDay")) {
        assertThat(data.path("metrics").path(f).isIntegralNumber()).as("metrics.%s", f).isTrue();
      }
    }
  }

  @Test
  void theServiceCatalogListsEveryLayerInOneAliasedDocument() throws Exception {
    List<String> layers = texts(horizon(CATALOG_LAYERS).path("layers"));
    assertThat(layers).contains("MESH");
    // Built as logic/services/service-layer-catalog.ts builds it: `_i: listServices(layer: "X")` per layer.
    List<String> aliased = new ArrayList<>();
    for (int i = 0; i < layers.size(); i++) {
      aliased.add("_" + i + ": listServices(layer: " + quote(layers.get(i)) + ") { id name normal group }");
    }
    JsonNode data = horizon("query HorizonServiceCatalogServices { " + String.join("\n", aliased) + " }");
    for (int i = 0; i < layers.size(); i++) {
      assertThat(data.path("_" + i).isArray()).as("layer %s", layers.get(i)).isTrue();
    }
    JsonNode mesh = data.path("_" + layers.indexOf("MESH"));
    List<String> names = new ArrayList<>();
    mesh.forEach(s -> {
      names.add(s.path("name").asText());
      assertThat(s.path("id").asText()).matches("^[A-Za-z0-9+/=]+\\.\\d+$");
      assertThat(s.path("normal").asBoolean()).isTrue();
      assertThat(s.has("group")).isTrue();
    });
    assertThat(names).contains("productpage", "reviews");
  }

  @Test
  void theLandingTableListsServicesWithShortNameAndGroup() throws Exception {
    JsonNode services = horizon(LANDING_SERVICES, Map.of("layer", "MESH")).path("services");
    JsonNode productpage = byField(services, "value", "productpage");
    assertThat(productpage.path("id").asText()).isEqualTo(serviceId("productpage"));
    assertThat(productpage.path("shortName").asText()).isNotBlank();
    assertThat(productpage.has("group")).isTrue();
    assertThat(productpage.path("normal").asBoolean()).isTrue();
  }

  @Test
  void theInstancesEndpointsTopologiesAndHierarchyOfAMeshServiceAnswer() throws Exception {
    Map<String, Object> duration = minuteWindow();
    String productpage = serviceId("productpage");
    String reviews = serviceId("reviews");

    JsonNode instances = horizon(LAYER_INSTANCES, Map.of("serviceId", productpage, "duration", duration))
        .path("instances");
    assertThat(texts(instances, "name")).contains("productpage-v1-0");
    instances.forEach(i -> assertThat(i.path("attributes").isArray()).isTrue());

    JsonNode endpoints = horizon(LAYER_ENDPOINTS,
        Map.of("serviceId", productpage, "keyword", "", "limit", 20, "duration", duration)).path("endpoints");
    assertThat(texts(endpoints, "name")).contains("GET:/productpage");

    List<String> meshIds = new ArrayList<>();
    horizon(LANDING_SERVICES, Map.of("layer", "MESH")).path("services")
        .forEach(s -> meshIds.add(s.path("id").asText()));
    JsonNode topology = horizon(SERVICES_TOPOLOGY, Map.of("duration", duration, "serviceIds", meshIds))
        .path("topology");
    assertThat(texts(topology.path("nodes"), "id")).contains(productpage, reviews);
    topology.path("nodes").forEach(n -> assertThat(n.path("layers").isArray()).as("layers of %s", n).isTrue());
    assertThat(texts(byField(topology.path("nodes"), "id", productpage).path("layers"))).contains("MESH");
    assertThat(topology.path("calls")).isNotEmpty();

    JsonNode instanceTopology = horizon(INSTANCE_TOPOLOGY,
        Map.of("clientServiceId", productpage, "serverServiceId", reviews, "duration", duration)).path("topology");
    assertThat(texts(instanceTopology.path("nodes"), "name"))
        .contains("productpage-v1-0", "reviews-v1-0", "reviews-v2-0");
    assertThat(instanceTopology.path("calls")).isNotEmpty();

    JsonNode hierarchy = horizon(SERVICE_HIERARCHY, Map.of("serviceId", productpage, "layer", "MESH"))
        .path("hierarchy");
    assertThat(hierarchy.path("relations").isArray()).isTrue();
  }

  @Test
  void anMqeBatchAnswersAnUnknownMetricAndAScopelessRelationWithoutErrors() throws Exception {
    Map<String, Object> w = minuteWindow();
    List<String> fragments = new ArrayList<>();
    fragments.add(dashboardFragment("w0_e0", "service_cpm", "productpage", w));
    fragments.add(dashboardFragment("w1_e0", "no_such_metric_cpm", "productpage", w));
    fragments.add(relationFragment("w2_e0", "service_relation_server_cpm", "productpage", "reviews", w));
    // http/query/dashboard.ts: `query DashboardMqe { ${fragments.join('\n    ')} }`.
    JsonNode data = horizon("query DashboardMqe { " + String.join("\n    ", fragments) + " }");

    JsonNode cpm = data.path("w0_e0");
    assertThat(cpm.path("type").asText()).isEqualTo("TIME_SERIES_VALUES");
    assertThat(cpm.path("error").isNull()).as("error of %s", cpm).isTrue();
    assertThat(values(cpm)).as("productpage's cpm over the window").contains(10.0);

    JsonNode unknown = data.path("w1_e0");
    assertThat(unknown.path("type").asText()).isEqualTo("UNKNOWN");
    assertThat(unknown.path("error").isTextual()).isTrue();
    assertThat(unknown.path("error").asText()).contains("no_such_metric_cpm");

    JsonNode relation = data.path("w2_e0");
    assertThat(relation.path("type").asText()).isEqualTo("TIME_SERIES_VALUES");
    assertThat(relation.path("error").isNull()).as("error of %s", relation).isTrue();
    assertThat(values(relation)).as("productpage -> reviews, server side").contains(8.0);
  }

  @Test
  void theTopologysEdgeBatchAnswersScopelessRelations() throws Exception {
    Map<String, Object> w = minuteWindow();
    List<String> fragments = List.of(
        relationFragment("s0_0", "service_relation_server_cpm", "productpage", "reviews", w),
        relationFragment("c0_0", "service_relation_client_cpm", "productpage", "reviews", w),
        relationFragment("s1_0", "service_relation_server_cpm", "productpage", "details", w));
    // client/graphql.ts fetchAliasedChunks: `query ${queryName} {\n  ${slice.join('\n  ')}\n}`.
    JsonNode data = horizon("query EdgeMetrics {\n  " + String.join("\n  ", fragments) + "\n}");
    for (String alias : List.of("s0_0", "c0_0", "s1_0")) {
      assertThat(data.path(alias).path("type").asText()).as(alias).isNotEqualTo("UNKNOWN");
      assertThat(data.path(alias).path("error").isNull()).as("error of %s: %s", alias, data.path(alias)).isTrue();
    }
    assertThat(values(data.path("s1_0"))).as("productpage -> details, server side").contains(6.0);
  }

  @Test
  void aBatchOfSixtyAliasedExpressionsFitsTheSizeLimits() throws Exception {
    Map<String, Object> w = minuteWindow();
    List<String> metrics = List.of("service_cpm", "service_resp_time", "service_sla", "service_apdex",
        "service_percentile{p='50,75,90,95,99'}", "service_cpm * 60");
    List<String> services = List.of("productpage", "reviews", "details", "ratings", "productpage", "reviews",
        "details", "ratings", "productpage", "reviews");
    List<String> fragments = new ArrayList<>();
    for (int wIdx = 0; wIdx < services.size(); wIdx++) {
      for (int eIdx = 0; eIdx < metrics.size(); eIdx++) {
        fragments.add(dashboardFragment("w" + wIdx + "_e" + eIdx, metrics.get(eIdx), services.get(wIdx), w));
      }
    }
    assertThat(fragments).hasSize(60);
    JsonNode data = horizon("query DashboardMqe { " + String.join("\n    ", fragments) + " }");
    for (int wIdx = 0; wIdx < services.size(); wIdx++) {
      for (int eIdx = 0; eIdx < metrics.size(); eIdx++) {
        JsonNode r = data.path("w" + wIdx + "_e" + eIdx);
        assertThat(r.path("error").isNull()).as("%s @ %s: %s", metrics.get(eIdx), services.get(wIdx), r).isTrue();
        assertThat(r.path("results")).as("%s @ %s", metrics.get(eIdx), services.get(wIdx)).isNotEmpty();
      }
    }
  }

  @Test
  void theAlarmsPageQueriesAlarmsOverASecondStepWindow() throws Exception {
    long now = System.currentTimeMillis();
    Map<String, Object> duration = Map.of("start", SECOND.format(Instant.ofEpochMilli(now - 60 * 60_000L)),
        "end", SECOND.format(Instant.ofEpochMilli(now)), "step", "SECOND");
    // http/query/alarms.ts, GET /api/alarms with a layer and a service: layer + entities ride server side.
    Map<String, Object> page = Map.of("duration", duration, "paging", Map.of("pageNum", 1, "pageSize", 500),
        "layer", "MESH", "entities", List.of(Map.of("scope", "Service", "serviceName", "productpage", "normal", true)));
    assertThat(horizon(QUERY_ALARMS, Map.of("condition", page)).path("queryAlarms").path("msgs").isArray()).isTrue();
    // The same page without filters, and the topbar badge's count (COUNT_FETCH_CAP 200).
    Map<String, Object> all = Map.of("duration", duration, "paging", Map.of("pageNum", 1, "pageSize", 500));
    assertThat(horizon(QUERY_ALARMS, Map.of("condition", all)).path("queryAlarms").path("msgs").isArray()).isTrue();
    Map<String, Object> count = Map.of("duration", duration, "paging", Map.of("pageNum", 1, "pageSize", 200));
    assertThat(horizon(COUNT_QUERY_ALARMS, Map.of("condition", count)).path("queryAlarms").path("msgs").isArray())
        .isTrue();
  }

  /** One document as Horizon's {@code graphqlPost} (client/graphql.ts) takes it: any error or no data fails it. */
  private static JsonNode horizon(String query) throws Exception {
    return horizon(query, Map.of());
  }

  private static JsonNode horizon(String query, Map<String, Object> variables) throws Exception {
    JsonNode response = sextant.graphql(query, variables);
    assertThat(response.path("errors").isMissingNode() || response.path("errors").isEmpty())
        .as("errors %s for %s", response.path("errors"), query).isTrue();
    assertThat(response.path("data").isObject()).as("data of %s for %s", response, query).isTrue();
    return response.path("data");
  }

  /**
   * One widget expression as http/query/dashboard.ts {@code buildFragment} writes it for a service:
   * every argument inline, the entity with its scope, and the selection with {@code owner}.
   */
  private static String dashboardFragment(String alias, String expression, String service, Map<String, Object> w) {
    return alias + ": execExpression(\n"
        + "      expression: " + quote(expression) + ",\n"
        + "      entity: { scope: Service, serviceName: " + quote(service) + ", normal: true },\n"
        + "      duration: " + inlineDuration(w) + "\n"
        + "    ) {\n"
        + "      type error\n"
        + "      results {\n"
        + "        metric { labels { key value } }\n"
        + "        values { id value traceID owner { scope serviceName serviceInstanceName endpointName } }\n"
        + "      }\n"
        + "    }";
  }

  /**
   * One edge metric as http/query/topology.ts {@code relationFragment} writes it: the entity has no
   * {@code scope}, which the server infers from the metric's name, as OAP does.
   */
  private static String relationFragment(String alias, String expression, String source, String dest,
      Map<String, Object> w) {
    return alias + ": execExpression(\n"
        + "      expression: " + quote(expression) + ",\n"
        + "      entity: { serviceName: " + quote(source) + ", normal: true, destServiceName: " + quote(dest)
        + ", destNormal: true },\n"
        + "      duration: " + inlineDuration(w) + "\n"
        + "    ) { type error results { values { value } } }";
  }

  private static String inlineDuration(Map<String, Object> w) {
    return "{ start: " + quote((String) w.get("start")) + ", end: " + quote((String) w.get("end")) + ", step: "
        + w.get("step") + " }";
  }

  /** util/window.ts defaultMinuteWindow: the last 60 minutes up to this minute, in the server's zone (UTC). */
  private static Map<String, Object> minuteWindow() {
    long end = System.currentTimeMillis() / 60_000 * 60_000;
    Map<String, Object> w = new HashMap<>();
    w.put("start", MINUTE.format(Instant.ofEpochMilli(end - 60 * 60_000L)));
    w.put("end", MINUTE.format(Instant.ofEpochMilli(end)));
    w.put("step", "MINUTE");
    return w;
  }

  /** A service's id as Horizon reads it: from the MESH layer's services, never built. */
  private static String serviceId(String name) throws Exception {
    JsonNode services = horizon(LANDING_SERVICES, Map.of("layer", "MESH")).path("services");
    return byField(services, "value", name).path("id").asText();
  }

  private static JsonNode byField(JsonNode rows, String field, String value) {
    for (JsonNode row : rows) {
      if (row.path(field).asText().equals(value)) {
        return row;
      }
    }
    throw new AssertionError("no " + field + " = " + value + " in " + rows);
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static List<String> texts(JsonNode rows, String field) {
    List<String> out = new ArrayList<>();
    rows.forEach(n -> out.add(n.path(field).asText()));
    return out;
  }

  /** The non-null values of an expression's first result. */
  private static List<Double> values(JsonNode result) {
    List<Double> out = new ArrayList<>();
    result.path("results").path(0).path("values").forEach(v -> {
      if (!v.path("value").isNull() && !v.path("value").isMissingNode()) {
        out.add(Double.parseDouble(v.path("value").asText()));
      }
    });
    return out;
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
