package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.api.config.ConfigKey;
import io.sextant.server.config.ConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code config:} schema is Sextant's key list: every application.yml key is reachable
 * (the chart sets a few itself), with the type and description of its key; nothing else is
 * accepted. A key added to Sextant needs its entry: {@code UPDATE_HELM_SCHEMA=1} with this test
 * rewrites the schema's {@code config} part from {@link ConfigKeys}.
 */
class ValuesSchemaTest {
  /**
   * Keys the chart renders from its own values (replica identity, ports, storage connection, RBAC
   * switch, spool, security Secrets).
   */
  static final Set<String> CHART_MANAGED = Set.of("core.collectorId", "server.grpcPort", "server.httpPort",
      "storage.selector", "storage.elasticsearch.hosts", "storage.elasticsearch.tls", "storage.elasticsearch.username",
      "storage.elasticsearch.password", "storage.elasticsearch.apiKey", "storage.elasticsearch.trustStorePath",
      "storage.elasticsearch.trustStorePassword", "receiver.als.kubernetes.enabled",
      "receiver.ebpf.accessLog.kubernetes.enabled", "core.spool.directory",
      "core.spool.maxMegabytes", "core.spool.fsync", "auth.receiverTokensFile", "auth.receiversWithoutToken",
      "auth.usersFile", "auth.anonymous", "auth.metricsToken", "tls.grpc", "tls.http", "tls.certificateFile",
      "tls.keyFile", "tls.clientCaFile", "alarm.settingsFile");

  private static final Path SCHEMA = Helm.CHART.resolve("values.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void configSchemaHasEveryKeyTheChartDoesNotSetItself() throws IOException {
    ObjectNode schema = (ObjectNode) JSON.readTree(SCHEMA.toFile());
    ObjectNode expected = expectedConfigSchema();
    if (System.getenv("UPDATE_HELM_SCHEMA") != null) {
      ((ObjectNode) schema.path("properties")).set("config", expected);
      DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withObjectIndenter(
          new DefaultIndenter("  ", "\n"));
      Files.writeString(SCHEMA, JSON.writer(printer).writeValueAsString(schema) + "\n");
    }
    assertThat(schema.path("properties").path("config"))
        .as("%s properties.config is out of date with Sextant's keys; rerun this test with UPDATE_HELM_SCHEMA=1",
            SCHEMA)
        .isEqualTo(expected);
    assertThat(ConfigKeys.ALL.stream().map(ConfigKey::path)).containsAll(CHART_MANAGED);
  }

  @Test
  void everyChartManagedKeyIsRenderedByTheDeployment() throws IOException {
    String deployment = Files.readString(Helm.CHART.resolve(Path.of("templates", "deployment.yaml")));
    for (ConfigKey key : ConfigKeys.ALL) {
      if (CHART_MANAGED.contains(key.path())) {
        assertThat(deployment).as(key.path()).contains("name: " + key.envName());
      }
    }
  }

  /** Nested as in application.yml; unknown keys refused at every level. */
  static ObjectNode expectedConfigSchema() {
    ObjectNode root = object();
    root.put("description", "application.yml keys, nested as in that file (docs/configuration.md). The chart"
        + " sets " + String.join(", ", CHART_MANAGED.stream().sorted().toList()) + " itself: use replicaCount,"
        + " ports, storage, spool, als and rover instead.");
    for (ConfigKey key : ConfigKeys.ALL) {
      if (CHART_MANAGED.contains(key.path())) {
        continue;
      }
      String[] parts = key.path().split("\\.");
      ObjectNode node = root;
      for (int i = 0; i < parts.length - 1; i++) {
        ObjectNode properties = (ObjectNode) node.get("properties");
        if (!properties.has(parts[i])) {
          properties.set(parts[i], object());
        }
        node = (ObjectNode) properties.get(parts[i]);
      }
      Object def = key.defaultValue();
      ObjectNode leaf = JSON.createObjectNode()
          .put("type", def instanceof Integer ? "integer" : def instanceof Boolean ? "boolean" : "string")
          .put("description", key.description());
      ((ObjectNode) node.get("properties")).set(parts[parts.length - 1], leaf);
    }
    return root;
  }

  private static ObjectNode object() {
    ObjectNode node = JSON.createObjectNode().put("type", "object").put("additionalProperties", false);
    node.set("properties", JSON.createObjectNode());
    return node;
  }
}
