package io.sextant.server.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Every expression a dashboard makes booster-ui 10.1 evaluate, with the way the UI picks the entity
 * for it: a plain widget (and the dashboard's own hierarchy expressions) uses the dashboard's entity;
 * the list widgets use each listed service, instance or endpoint; a topology uses each real node and
 * each call seen from the client or the server side.
 */
public final class DashboardProbes {
  /** Which entities the UI evaluates an expression against. */
  public enum Use {
    DASHBOARD_ENTITY, SERVICE_LIST, INSTANCE_LIST, ENDPOINT_LIST, TOPOLOGY_NODE, TOPOLOGY_CLIENT_CALL,
    TOPOLOGY_SERVER_CALL
  }

  /** One expression of one widget; {@code widget} is its path in the dashboard, for messages. */
  public record Probe(String widget, Use use, String expression) {}

  private DashboardProbes() {}

  /** The probes of a dashboard's {@code configuration}, walking tabs and their children. */
  public static List<Probe> of(JsonNode configuration) {
    List<Probe> out = new ArrayList<>();
    add(out, "dashboard", Use.DASHBOARD_ENTITY, configuration.path("expressions"));
    walk(out, "", configuration.path("children"));
    return out;
  }

  private static void walk(List<Probe> out, String path, JsonNode widgets) {
    for (JsonNode w : widgets) {
      String type = w.path("type").asText();
      String here = path + type + "#" + w.path("i").asText()
          + (w.path("widget").has("title") ? " '" + w.path("widget").path("title").asText() + "'" : "");
      switch (type) {
        case "Tab" -> {
          for (JsonNode tab : w.path("children")) {
            walk(out, here + " > " + tab.path("name").asText() + " > ", tab.path("children"));
          }
        }
        case "Topology" -> {
          add(out, here + " nodes", Use.TOPOLOGY_NODE, w.path("nodeExpressions"));
          if (w.path("legendMQE").hasNonNull("expression")) {
            out.add(new Probe(here + " legend", Use.TOPOLOGY_NODE, w.path("legendMQE").path("expression").asText()));
          }
          add(out, here + " client calls", Use.TOPOLOGY_CLIENT_CALL, w.path("linkClientExpressions"));
          add(out, here + " server calls", Use.TOPOLOGY_SERVER_CALL, w.path("linkServerExpressions"));
        }
        case "Widget" -> {
          Use use = switch (w.path("graph").path("type").asText()) {
            case "ServiceList" -> Use.SERVICE_LIST;
            case "InstanceList" -> Use.INSTANCE_LIST;
            case "EndpointList" -> Use.ENDPOINT_LIST;
            default -> Use.DASHBOARD_ENTITY;
          };
          add(out, here, use, w.path("expressions"));
          add(out, here + " (series)", use, w.path("subExpressions"));
        }
        default -> {
          // Text, Event: no expression (events are read by their own query).
        }
      }
    }
  }

  private static void add(List<Probe> out, String widget, Use use, JsonNode expressions) {
    for (JsonNode e : expressions) {
      if (!e.asText().isBlank()) {
        out.add(new Probe(widget, use, e.asText()));
      }
    }
  }
}
