package io.sextant.server.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sextant's Horizon templates (the distribution's {@code config/horizon}) as the dashboard contract
 * evaluates them: each place Horizon v0.7.0 evaluates expressions becomes a dashboard in booster-ui's
 * shape, so that {@link DashboardProbes} picks the entities Horizon would (its layer's service list
 * for the landing columns and overview tiles, the dashboard's entity for a widget, the service map's
 * nodes and calls, and each call's instance map).
 */
public final class HorizonDashboards {
  /** The directory the distribution ships, from this module's directory. */
  public static final Path DIR = Path.of("../../dist/src/layout/config/horizon").toAbsolutePath().normalize();
  /** Dashboards whose widgets Horizon shows only when their metric has data ({@code visibleWhen}). */
  public static final String WHEN_PRESENT = " (shown when present)";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> ENTITY_OF_DASHBOARD =
      Map.of("service", "Service", "instance", "ServiceInstance", "endpoint", "Endpoint");

  private HorizonDashboards() {}

  /** The contract's dashboards of the {@code horizon.*} rows of a template store list answer. */
  public static List<JsonNode> of(JsonNode storeRows) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode row : storeRows) {
      if (!row.path("id").asText().startsWith("horizon.")) {
        continue;
      }
      JsonNode envelope = JSON.readTree(row.path("configuration").asText());
      String name = envelope.path("name").asText();
      JsonNode content = envelope.path("content");
      if (envelope.path("kind").asText().equals("layer")) {
        layer(out, name, content);
      } else {
        overview(out, name, content);
      }
    }
    return out;
  }

  private static void layer(List<JsonNode> out, String name, JsonNode t) {
    String layer = t.path("key").asText();
    ArrayNode columns = JSON.createArrayNode();
    t.path("header").path("columns").forEach(c -> columns.add(c.path("mqe")));
    if (!columns.isEmpty()) {
      out.add(dashboard(name + " landing", layer, "All", widget("columns", "ServiceList", columns)));
    }
    for (Map.Entry<String, String> d : ENTITY_OF_DASHBOARD.entrySet()) {
      ArrayNode always = JSON.createArrayNode();
      ArrayNode whenPresent = JSON.createArrayNode();
      for (JsonNode w : t.path("dashboards").path(d.getKey())) {
        ObjectNode widget = widget(w.path("id").asText(), "Line", w.path("expressions"));
        (w.has("visibleWhen") ? whenPresent : always).add(widget);
      }
      String base = name + " " + d.getKey();
      if (!always.isEmpty()) {
        out.add(dashboard(base, layer, d.getValue(), always));
      }
      if (!whenPresent.isEmpty()) {
        out.add(dashboard(base + WHEN_PRESENT, layer, d.getValue(), whenPresent));
      }
    }
    JsonNode topology = t.path("topology");
    if (topology.isObject()) {
      out.add(dashboard(name + " topology", layer, "All", topology(topology)));
      if (topology.path("instanceTopology").isObject()) {
        out.add(dashboard(name + " instance topology", layer, "ServiceRelation",
            topology(topology.path("instanceTopology"))));
      }
    }
  }

  private static void overview(List<JsonNode> out, String name, JsonNode t) {
    for (JsonNode w : t.path("widgets")) {
      if (w.path("type").asText().equals("kpi-tile")) {
        ArrayNode kpis = JSON.createArrayNode();
        w.path("kpis").forEach(k -> kpis.add(k.path("mqe")));
        out.add(dashboard(name + " " + w.path("id").asText(), w.path("layer").asText(), "All",
            widget(w.path("id").asText(), "ServiceList", kpis)));
      }
    }
  }

  private static ObjectNode topology(JsonNode t) {
    ObjectNode w = JSON.createObjectNode().put("type", "Topology").put("i", "topology");
    w.set("nodeExpressions", mqes(t.path("nodeMetrics")));
    w.set("linkServerExpressions", mqes(t.path("linkServerMetrics")));
    w.set("linkClientExpressions", mqes(t.path("linkClientMetrics")));
    return w;
  }

  private static ArrayNode mqes(JsonNode metrics) {
    ArrayNode out = JSON.createArrayNode();
    metrics.forEach(m -> out.add(m.path("mqe")));
    return out;
  }

  private static ObjectNode widget(String id, String graph, JsonNode expressions) {
    ObjectNode w = JSON.createObjectNode().put("type", "Widget").put("i", id);
    w.putObject("graph").put("type", graph);
    w.set("expressions", expressions);
    return w;
  }

  private static JsonNode dashboard(String name, String layer, String entity, JsonNode... widgets) {
    ArrayNode children = JSON.createArrayNode();
    for (JsonNode w : widgets) {
      if (w.isArray()) {
        children.addAll((ArrayNode) w);
      } else {
        children.add(w);
      }
    }
    ObjectNode c = JSON.createObjectNode().put("name", name).put("layer", layer).put("entity", entity);
    c.set("children", children);
    return JSON.createObjectNode().put("id", name).set("configuration", c);
  }
}
