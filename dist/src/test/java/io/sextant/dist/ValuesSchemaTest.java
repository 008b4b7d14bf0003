package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.config.ConfigKey;
import io.sextant.server.config.ConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code config:} schema is Sextant's key list: every application.yml key is reachable
 * (the chart sets a few itself), with the type of its default; nothing else is accepted.
 */
class ValuesSchemaTest {
  /** Keys the chart renders from its own values (replica identity, ports, storage connection, RBAC switch). */
  static final Set<String> CHART_MANAGED = Set.of("core.collectorId", "server.grpcPort", "server.httpPort",
      "storage.selector", "storage.elasticsearch.hosts", "storage.elasticsearch.tls", "storage.elasticsearch.username",
      "storage.elasticsearch.password", "storage.elasticsearch.apiKey", "storage.elasticsearch.trustStorePath",
      "storage.elasticsearch.trustStorePassword", "receiver.als.kubernetes.enabled");

  @Test
  void configSchemaHasEveryKeyTheChartDoesNotSetItself() throws IOException {
    JsonNode schema = new ObjectMapper().readTree(Helm.CHART.resolve("values.schema.json").toFile());
    Map<String, String> inSchema = new HashMap<>();
    leaves(schema.path("properties").path("config"), "", inSchema);

    Map<String, String> expected = new HashMap<>();
    for (ConfigKey key : ConfigKeys.ALL) {
      if (!CHART_MANAGED.contains(key.path())) {
        Object def = key.defaultValue();
        expected.put(key.path(), def instanceof Integer ? "integer" : def instanceof Boolean ? "boolean" : "string");
      }
    }
    assertThat(inSchema).as("dist/helm/sextant/values.schema.json, properties.config: every Sextant key (nested"
        + " by its dots, with the type of its default) except the chart-managed ones; a key added to Sextant"
        + " needs its entry there").isEqualTo(expected);
    assertThat(ConfigKeys.ALL.stream().map(ConfigKey::path)).containsAll(CHART_MANAGED);
  }

  @Test
  void everyChartManagedKeyIsRenderedByTheDeployment() throws IOException {
    String deployment = java.nio.file.Files.readString(Helm.CHART.resolve(Path.of("templates", "deployment.yaml")));
    for (ConfigKey key : ConfigKeys.ALL) {
      if (CHART_MANAGED.contains(key.path())) {
        assertThat(deployment).as(key.path()).contains("name: " + key.envName());
      }
    }
  }

  private static void leaves(JsonNode node, String prefix, Map<String, String> out) {
    assertThat(node.path("additionalProperties").asBoolean(true)).as(prefix + " refuses unknown keys").isFalse();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.path("properties").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      if (e.getValue().path("type").asText().equals("object")) {
        leaves(e.getValue(), path, out);
      } else {
        out.put(path, e.getValue().path("type").asText());
      }
    }
  }
}
