package io.sextant.server.dashboards;

import static io.sextant.server.testing.UiGraphql.add;
import static io.sextant.server.testing.UiGraphql.all;
import static io.sextant.server.testing.UiGraphql.change;
import static io.sextant.server.testing.UiGraphql.disable;
import static io.sextant.server.testing.UiGraphql.template;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.sextant.core.management.ShippedTemplate;
import io.sextant.core.management.ShippedTemplates;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.server.testing.UiGraphql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ui-configuration.graphqls over real HTTP, as booster-ui asks: the menu and every template operation. */
class UiConfigurationIT {
  /** A real shipped dashboard (the MESH service one), as the loader stores it. */
  static final ShippedTemplate SHIPPED_TEMPLATE = ShippedTemplates.fromClasspath().stream()
      .filter(t -> t.nameKey().startsWith("MESH_Service_")).findFirst().orElseThrow();
  static final String SHIPPED_ID = SHIPPED_TEMPLATE.id();
  static final String SHIPPED = SHIPPED_TEMPLATE.configuration();
  static final String MINE = "{\"name\":\"Mine\",\"layer\":\"MESH_DP\",\"entity\":\"ServiceInstance\","
      + "\"isRoot\":false,\"children\":[]}";
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of());

  private static TestServer sextant() {
    return SEXTANT.server();
  }

  /** The configuration with another dashboard name: an edit a user could make. */
  static String renamed(String configuration, String name) {
    String key = SHIPPED_TEMPLATE.nameKey();
    String current = key.substring("MESH_Service_".length());
    String out = configuration.replace("\"name\":\"" + current + "\"", "\"name\":\"" + name + "\"");
    if (out.equals(configuration)) {
      throw new IllegalStateException("no name " + current + " in " + configuration);
    }
    return out;
  }

  static List<String> shippedIds() {
    return ShippedTemplates.fromClasspath().stream().map(ShippedTemplate::id).toList();
  }

  private List<String> ids() throws Exception {
    List<String> ids = new ArrayList<>();
    all(sextant()).forEach(t -> ids.add(t.get("id").asText()));
    return ids;
  }

  @Test
  void theMenuIsSkyWalkingsForOurLayersAndActivatesALayerOnceItHasData() throws Exception {
    JsonNode menu = UiGraphql.data(sextant(), UiGraphql.MENU, Map.of()).get("getMenuItems");
    assertThat(menu).hasSize(2);
    JsonNode mesh = menu.get(0);
    assertThat(JSON.writeValueAsString(mesh)).isEqualTo("{\"title\":\"Service Mesh\",\"icon\":\"service_mesh\","
        + "\"layer\":\"\",\"activate\":false,\"description\":\"Service Mesh(Istio) addresses the challenges developers"
        + " and operators face with a distributed or microservices architecture.\",\"documentLink\":null,"
        + "\"i18nKey\":\"service_mesh\",\"subItems\":[{\"title\":\"Services\",\"icon\":null,\"layer\":\"MESH\","
        + "\"activate\":false,\"description\":\"Observe Service Mesh through telemetry data collected from Envoy"
        + " Access Log Service (ALS).\",\"documentLink\":\"https://skywalking.apache.org/docs/main/next/en/setup/"
        + "envoy/als_setting/\",\"i18nKey\":\"service_mesh_service\"},{\"title\":\"Data Plane\","
        + "\"icon\":null,\"layer\":\"MESH_DP\",\"activate\":false,\"description\":\"Observe Envoy Proxy through"
        + " Envoy Metrics Service.\",\"documentLink\":\"https://skywalking.apache.org/docs/main/next/en/setup/"
        + "envoy/metrics_service_setting/\",\"i18nKey\":\"service_mesh_data_plane\"}]}");
    assertThat(menu.get(1).get("title").asText()).isEqualTo("Kubernetes");
    assertThat(menu.get(1).get("subItems").get(0).get("layer").asText()).isEqualTo("K8S_SERVICE");

    long now = System.currentTimeMillis();
    HTTPServiceMeshMetric call = HTTPServiceMeshMetric.newBuilder().setStartTime(now).setEndTime(now + 10)
        .setSourceServiceName("client").setSourceServiceInstance("client-0")
        .setDestServiceName("server").setDestServiceInstance("server-0").setEndpoint("GET:/")
        .setLatency(10).setResponseCode(200).setStatus(true).setDetectPoint(DetectPoint.server).build();
    assertThat(sextant().stream(List.of(ServiceMeshMetrics.newBuilder()
        .setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addMetrics(call)).build())).getCode())
        .isEqualTo(Status.Code.OK);
    sextant().flush();

    menu = UiGraphql.data(sextant(), UiGraphql.MENU, Map.of()).get("getMenuItems");
    assertThat(menu.get(0).get("activate").asBoolean()).isTrue();
    List<String> active = new ArrayList<>();
    menu.get(0).get("subItems").forEach(i -> active.add(i.get("layer").asText() + "=" + i.get("activate")));
    assertThat(active).containsExactly("MESH=true", "MESH_DP=false");
    assertThat(menu.get(1).get("activate").asBoolean()).isFalse();
  }

  @Test
  void shippedDashboardsAreServedExactly() throws Exception {
    JsonNode shipped = template(sextant(), SHIPPED_ID);
    assertThat(shipped.get("id").asText()).isEqualTo(SHIPPED_ID);
    assertThat(shipped.get("configuration").asText()).isEqualTo(SHIPPED);
    assertThat(ids()).contains(SHIPPED_ID);
    JsonNode inAll = null;
    for (JsonNode t : all(sextant())) {
      inAll = t.get("id").asText().equals(SHIPPED_ID) ? t : inAll;
    }
    assertThat(JSON.writeValueAsString(inAll)).isEqualTo(JSON.writeValueAsString(shipped));
    assertThat(UiGraphql.data(sextant(), UiGraphql.ONE, Map.of("id", "no-such-template")).get("getTemplate").isNull())
        .isTrue();
  }

  @Test
  void addChangeAndDisableAnswerAsSkyWalkingDoes() throws Exception {
    JsonNode added = add(sextant(), MINE);
    assertThat(added.get("status").asBoolean()).isTrue();
    assertThat(added.get("message").isNull()).isTrue();
    String id = added.get("id").asText();
    assertThat(template(sextant(), id).get("configuration").asText()).isEqualTo(MINE);
    assertThat(ids()).contains(id, SHIPPED_ID);

    String renamed = MINE.replace("Mine", "Renamed");
    assertThat(JSON.writeValueAsString(change(sextant(), id, renamed)))
        .isEqualTo("{\"id\":\"" + id + "\",\"status\":true,\"message\":null}");
    assertThat(template(sextant(), id).get("configuration").asText()).isEqualTo(renamed);
    String editedShipped = renamed(SHIPPED, "My-Mesh-Service");
    assertThat(change(sextant(), SHIPPED_ID, editedShipped).get("status").asBoolean()).isTrue();
    assertThat(template(sextant(), SHIPPED_ID).get("configuration").asText()).isEqualTo(editedShipped);

    assertThat(JSON.writeValueAsString(disable(sextant(), id)))
        .isEqualTo("{\"id\":\"" + id + "\",\"status\":true,\"message\":null}");
    assertThat(template(sextant(), id).isNull()).isTrue();
    assertThat(ids()).doesNotContain(id).contains(SHIPPED_ID);
  }

  @Test
  void badInputAnswersAFailedStatusWithTheReason() throws Exception {
    assertThat(JSON.writeValueAsString(change(sextant(), "no-such-template", MINE)))
        .isEqualTo("{\"id\":\"no-such-template\",\"status\":false,\"message\":\"Can't find the template\"}");
    assertThat(JSON.writeValueAsString(disable(sextant(), "no-such-template")))
        .isEqualTo("{\"id\":\"no-such-template\",\"status\":false,\"message\":\"Can't find the template\"}");

    JsonNode malformed = change(sextant(), SHIPPED_ID, "{\"name\": \"x\",");
    assertThat(malformed.get("status").asBoolean()).isFalse();
    assertThat(malformed.get("id").asText()).isEqualTo(SHIPPED_ID);
    assertThat(malformed.get("message").asText()).startsWith("The configuration is not valid JSON: ");
    JsonNode noName = add(sextant(), "{\"layer\":\"MESH\",\"entity\":\"Service\"}");
    assertThat(JSON.writeValueAsString(noName)).isEqualTo("{\"id\":\"\",\"status\":false,\"message\":\"The"
        + " configuration needs a non-empty string 'name': the UI files a dashboard under its layer, entity and"
        + " name\"}");
    assertThat(template(sextant(), SHIPPED_ID).get("configuration").asText()).isEqualTo(SHIPPED);
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(shippedIds()).contains(SHIPPED_ID);

    // A missing required field is refused by the schema, as SkyWalking's graphql-java does.
    JsonNode missing = UiGraphql.post(sextant(), UiGraphql.CHANGE, Map.of("setting", Map.of("id", SHIPPED_ID)));
    assertThat(missing.get("errors").get(0).get("message").asText()).contains("configuration");
    assertThat(missing.path("data").path("changeTemplate").isMissingNode()
        || missing.path("data").path("changeTemplate").isNull()).isTrue();
  }
}
