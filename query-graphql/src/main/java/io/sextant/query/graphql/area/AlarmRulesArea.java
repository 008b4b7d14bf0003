package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.storage.VersionConflictException;
import io.sextant.core.alarm.AlarmDryRun;
import io.sextant.core.alarm.AlarmEngine;
import io.sextant.core.alarm.AlarmRule;
import io.sextant.core.alarm.AlarmRules;
import io.sextant.core.alarm.AlarmSettingsException;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sextant's alarm-rule API (schema-extensions/alarm.graphqls): list every rule, create, change,
 * disable and delete API rules with optimistic versions, and dry-run a draft over stored minutes.
 * Refusals answer {@code errorReason} with every problem of the rule.
 */
public record AlarmRulesArea(AlarmRules rules, AlarmEngine engine) implements SchemaArea {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final int DEFAULT_DRY_RUN_MINUTES = 180;

  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("listAlarmRules", safe(env -> {
          List<Map<String, Object>> out = new ArrayList<>();
          rules.listed().forEach(l -> out.add(rule(l)));
          return out;
        }))
        .dataFetcher("dryRunAlarmRule", safe(env -> {
          Integer minutes = env.getArgument("minutes");
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("rule", env.getArgument("name"));
          try {
            AlarmRule draft = rules.draft(env.getArgument("name"), settings(env.getArgument("settings")));
            AlarmDryRun.Result r = engine.dryRun(draft, minutes == null ? DEFAULT_DRY_RUN_MINUTES : minutes);
            out.put("minutes", r.minutes());
            out.put("entities", r.entities());
            List<Map<String, Object>> alarms = new ArrayList<>();
            for (AlarmDryRun.Firing f : r.alarms()) {
              Map<String, Object> a = new LinkedHashMap<>();
              a.put("entity", f.entity());
              a.put("scope", f.scope());
              a.put("startTime", f.startTime());
              a.put("recoveryTime", f.recoveryTime() == 0 ? null : f.recoveryTime());
              a.put("message", f.message());
              alarms.add(a);
            }
            out.put("alarms", alarms);
          } catch (AlarmSettingsException | IllegalArgumentException e) {
            out.put("minutes", 0);
            out.put("entities", 0);
            out.put("alarms", List.of());
            out.put("errorReason", e.getMessage());
          }
          return out;
        })));
    w.type("Mutation", t -> t
        .dataFetcher("saveAlarmRule", safe(env -> change(() -> {
          AlarmRule saved = rules.save(env.getArgument("name"), settings(env.getArgument("settings")),
              ((Number) env.getArgument("version")).longValue());
          return rules.listed().stream().filter(l -> l.name().equals(saved.name())).findFirst()
              .map(AlarmRulesArea::rule).orElseThrow();
        })))
        .dataFetcher("deleteAlarmRule", safe(env -> change(() -> {
          String name = env.getArgument("name");
          if (!rules.delete(name, ((Number) env.getArgument("version")).longValue())) {
            throw new IllegalArgumentException("there is no API rule '" + name + "'");
          }
          return null;
        }))));
  }

  private interface Change {
    Map<String, Object> run();
  }

  private static Map<String, Object> change(Change change) {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      out.put("rule", change.run());
      out.put("errorReason", null);
    } catch (AlarmSettingsException | IllegalArgumentException e) {
      out.put("rule", null);
      out.put("errorReason", e.getMessage());
    } catch (VersionConflictException e) {
      out.put("rule", null);
      out.put("errorReason", e.getMessage());
    }
    return out;
  }

  private static Map<String, Object> settings(String json) {
    try {
      Map<String, Object> m = JSON.readValue(json, MAP);
      if (m == null) {
        throw new IllegalArgumentException("settings must be a JSON object of alarm-settings.yml's rule keys");
      }
      return m;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("settings must be a JSON object of alarm-settings.yml's rule keys: "
          + e.getOriginalMessage());
    }
  }

  private static Map<String, Object> rule(AlarmRules.Listed l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", l.name());
    try {
      m.put("settings", JSON.writeValueAsString(l.settings()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    AlarmRule r = l.rule();
    m.put("scope", r == null ? null : r.scope().name());
    m.put("enabled", r != null && r.enabled());
    m.put("source", r != null && r.fromFile() ? "file" : "api");
    m.put("version", l.version());
    m.put("hooks", r == null ? List.of() : r.hooks());
    m.put("problem", l.problem());
    return m;
  }
}
