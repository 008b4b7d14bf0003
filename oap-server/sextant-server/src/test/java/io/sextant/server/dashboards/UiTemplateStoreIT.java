package io.sextant.server.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.server.testing.UiGraphql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The template store's contract on the memory store: Horizon's seed, its byte-for-byte reads,
 * updates and disables, the answers to bad bodies, and who may write.
 */
class UiTemplateStoreIT {
  private static final String TOKEN = "horizon-bff-token";
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of("auth.anonymous", "viewer",
      "auth.editorTokens", TOKEN, "query.horizonTemplates", HorizonDashboards.DIR.toString()));
  /** A Horizon envelope, spacing and all, as its BFF writes it: it must come back byte for byte. */
  private static final String MESH = "{\"kind\": \"layer\",  \"layer\":\"MESH\", \"tabs\":[{\"name\":\"Überblick\"}]}";
  private static TestServer sextant;
  private static UiTemplateStore editor;
  private static UiTemplateStore anonymous;

  @BeforeAll
  static void start() {
    sextant = SEXTANT.server();
    editor = new UiTemplateStore(sextant, "Bearer " + TOKEN);
    anonymous = new UiTemplateStore(sextant, null);
  }

  @Test
  void aRowIsCreatedReadUpdatedAndDisabledByteForByte() throws Exception {
    String id = "horizon.layer.MESH." + UUID.randomUUID();
    UiTemplateStore.Answer created = editor.create(id, MESH);
    assertThat(created.status()).isEqualTo(200);
    assertThat(created.json().get("id").asText()).isEqualTo(id);
    assertThat(created.json().get("status").asBoolean()).isTrue();
    assertThat(UiTemplateStore.rows(editor.list(false), id)).containsExactly(id + " false " + MESH);

    UiTemplateStore.Answer again = editor.create(id, "{}");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("status").asBoolean()).isFalse();
    assertThat(again.json().get("message").asText()).isEqualTo("Template already exists");

    String changed = MESH.replace("Überblick", "Overview");
    assertThat(editor.update(id, changed).status()).isEqualTo(200);
    assertThat(editor.get(id).json().get("configuration").asText()).isEqualTo(changed);

    assertThat(editor.disable(id).status()).isEqualTo(200);
    assertThat(UiTemplateStore.rows(editor.list(false), id)).isEmpty();
    assertThat(UiTemplateStore.rows(editor.list(true), id)).containsExactly(id + " true " + changed);
    assertThat(editor.get(id).status()).isEqualTo(404);
    // An update enables it again, as in SkyWalking.
    assertThat(editor.update(id, MESH).status()).isEqualTo(200);
    assertThat(UiTemplateStore.rows(editor.list(false), id)).containsExactly(id + " false " + MESH);
  }

  @Test
  void aBodyWithoutIdOrConfigurationIsABadRequestAndAnUnknownRowAConflict() throws Exception {
    UiTemplateStore.Answer noId = editor.post("{\"configuration\":\"{}\"}");
    assertThat(noId.status()).isEqualTo(400);
    assertThat(noId.json().get("error").asText()).isEqualTo("missing_id");
    UiTemplateStore.Answer noConfiguration = editor.post("{\"id\":\"horizon.x\"}");
    assertThat(noConfiguration.status()).isEqualTo(400);
    assertThat(noConfiguration.json().get("error").asText()).isEqualTo("missing_configuration");
    assertThat(editor.post("not json").json().get("error").asText()).isEqualTo("invalid_json");
    UiTemplateStore.Answer unknown = editor.update("horizon.nobody." + UUID.randomUUID(), "{}");
    assertThat(unknown.status()).isEqualTo(409);
    assertThat(unknown.json().get("message").asText()).isEqualTo("Can't find the template");
    assertThat(editor.disable("horizon.nobody").status()).isEqualTo(409);
  }

  @Test
  void anonymousCallersReadButOnlyEditorsWrite() throws Exception {
    assertThat(anonymous.list(true).status()).isEqualTo(200);
    assertThat(anonymous.create("horizon.layer.K8S_SERVICE", MESH).status()).isEqualTo(403);
    assertThat(anonymous.disable("sextant-mesh-root").status()).isEqualTo(403);
    assertThat(new UiTemplateStore(sextant, "Bearer wrong").list(false).status()).isEqualTo(401);
    assertThat(editor.send("POST", UiTemplateStore.PATH, "{\"id\":\"a\",\"configuration\":\"{}\"}",
        Map.of("content-type", "text/plain")).status()).isEqualTo(415);
    assertThat(editor.send("POST", UiTemplateStore.PATH, "{\"id\":\"a\",\"configuration\":\"{}\"}",
        Map.of("content-type", "application/json", "sec-fetch-site", "cross-site")).status()).isEqualTo(403);
  }

  /**
   * Sextant's own Horizon rows are in before Horizon lists the store, in Horizon's envelope, so its
   * seed (a create of each absent name) leaves them as they are.
   */
  @Test
  void sextantsHorizonRowsAreInAndHorizonsSeedLeavesThem() throws Exception {
    List<String> shipped = List.of("horizon.layer.MESH", "horizon.layer.MESH_DP", "horizon.layer.K8S_SERVICE",
        "horizon.overview.mesh");
    List<String> ids = new ArrayList<>();
    for (JsonNode row : anonymous.list(false).json()) {
      String id = row.get("id").asText();
      if (shipped.contains(id)) {
        ids.add(id);
        JsonNode envelope = JSON.readTree(row.get("configuration").asText());
        assertThat(envelope.get("name").asText()).isEqualTo(id);
        assertThat(envelope.get("version").asInt()).isEqualTo(1);
        assertThat(id).startsWith("horizon." + envelope.get("kind").asText() + ".");
        assertThat(row.get("configuration").asText()).startsWith("{\"content\":{");
      }
    }
    assertThat(ids).containsExactlyInAnyOrderElementsOf(shipped);
    JsonNode mesh = JSON.readTree(editor.get("horizon.layer.MESH").json().get("configuration").asText());
    assertThat(mesh.at("/content/components/traces").asBoolean()).isFalse();
    assertThat(mesh.at("/content/components/podLogs").asBoolean()).isFalse();
    assertThat(editor.create("horizon.layer.MESH", MESH).status()).isEqualTo(409);
  }

  @Test
  void boosterUiSeesItsDashboardsAndNotHorizonsRows() throws Exception {
    String id = "horizon.overview.mesh." + UUID.randomUUID();
    assertThat(editor.create(id, MESH).status()).isEqualTo(200);
    var all = UiGraphql.all(sextant);
    assertThat(all.findValuesAsText("id")).contains("sextant-mesh-root").doesNotContain(id);
    // Horizon sees every row, the shipped booster-ui dashboards included.
    assertThat(UiTemplateStore.rows(editor.list(false), "sextant-mesh-root")).hasSize(1);
  }
}
