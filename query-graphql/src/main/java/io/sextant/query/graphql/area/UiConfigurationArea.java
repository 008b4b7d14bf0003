package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.core.management.DashboardTemplate;
import io.sextant.core.management.MenuItem;
import io.sextant.core.management.TemplateChange;
import io.sextant.core.management.UiMenu;
import io.sextant.core.management.UiTemplates;
import io.sextant.query.graphql.SchemaArea;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * ui-configuration.graphqls: the UI's menu and its dashboards (templates). Refusals of a change are
 * {@code TemplateChangeStatus} answers with {@code status: false} and a message, as in SkyWalking.
 */
public record UiConfigurationArea(UiTemplates templates, UiMenu menu) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("getTemplate", safe(env -> templates.get(env.getArgument("id"))
            .map(UiConfigurationArea::template).orElse(null)))
        .dataFetcher("getAllTemplates", safe(env -> templates.all().stream()
            .map(UiConfigurationArea::template).toList()))
        .dataFetcher("getMenuItems", safe(env -> menu.items().stream().map(UiConfigurationArea::item).toList())));
    w.type("Mutation", t -> t
        .dataFetcher("addTemplate", safe(env -> status(templates.add(
            (String) setting(env.getArgument("setting")).get("configuration")))))
        .dataFetcher("changeTemplate", safe(env -> {
          Map<String, Object> setting = setting(env.getArgument("setting"));
          return status(templates.change((String) setting.get("id"), (String) setting.get("configuration")));
        }))
        .dataFetcher("disableTemplate", safe(env -> status(templates.disable(env.getArgument("id"))))));
  }

  private static Map<String, Object> setting(Map<String, Object> setting) {
    if (setting == null) {
      throw new IllegalArgumentException("setting is required");
    }
    return setting;
  }

  private static Map<String, Object> template(DashboardTemplate t) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", t.id());
    out.put("configuration", t.configuration());
    return out;
  }

  private static Map<String, Object> status(TemplateChange c) {
    Map<String, Object> out = new HashMap<>();
    out.put("id", c.id());
    out.put("status", c.status());
    out.put("message", c.message());
    return out;
  }

  private static Map<String, Object> item(MenuItem m) {
    Map<String, Object> out = new HashMap<>();
    out.put("title", m.title());
    out.put("icon", m.icon());
    out.put("layer", m.layer());
    out.put("activate", m.activate());
    out.put("subItems", m.subItems().stream().map(UiConfigurationArea::item).toList());
    out.put("description", m.description());
    out.put("documentLink", m.documentLink());
    out.put("i18nKey", m.i18nKey());
    return out;
  }
}
