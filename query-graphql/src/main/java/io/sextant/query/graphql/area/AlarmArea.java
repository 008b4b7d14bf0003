package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.DataFetchingEnvironment;
import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.event.Event;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.core.alarm.AlarmMessage;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.alarm.RuleEvaluator;
import io.sextant.core.query.EventQueries;
import io.sextant.core.query.mqe.MqeValue;
import io.sextant.query.graphql.SchemaArea;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * alarm.graphqls: {@code getAlarm} in the shapes booster-ui 10.1 to 10.4 and swctl ask for (with
 * {@code name}, {@code snapshot} and {@code recoveryTime} of the newer releases), {@code
 * getAlarmTrend}, and the tag autocompletion. An alarm's events are those of its services from ten
 * minutes before it started until it recovered (or now).
 */
public record AlarmArea(AlarmQueries alarms, EventQueries events, DurationBounds bounds) implements SchemaArea {
  private static final long EVENTS_BEFORE_MILLIS = 10 * 60_000L;
  private static final int EVENTS_PER_ALARM = 20;

  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("getAlarm", safe(env -> msgs(alarms.alarms(condition(env.getArgument("duration"),
            storedScope(env.getArgument("scope")), env.getArgument("keyword"), env.getArgument("tags"),
            env.getArgument("paging"))))))
        .dataFetcher("queryAlarms", safe(env -> queryAlarms(env.getArgument("condition"))))
        .dataFetcher("getAlarmTrend", safe(env -> Map.of("numOfAlarm", trend(env))))
        .dataFetcher("queryAlarmTagAutocompleteKeys", safe(env -> {
          long[] range = range(env);
          return alarms.tagKeys(range[0], range[1]);
        }))
        .dataFetcher("queryAlarmTagAutocompleteValues", safe(env -> {
          long[] range = range(env);
          return alarms.tagValues(env.getArgument("tagKey"), range[0], range[1]);
        })));
    w.type("AlarmMessage", t -> t.dataFetcher("events", safe(env -> events(env.getSource()))));
  }

  /** SkyWalking 11's {@code queryAlarms}: getAlarm's condition, narrowed by entities, layer and rules. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> queryAlarms(Map<String, Object> c) {
    String layerName = (String) c.get("layer");
    boolean byLayer = layerName != null && !layerName.isEmpty();
    Layer layer = byLayer ? layer(layerName) : null;
    if (byLayer && layer == null) {
      return msgs(List.of()); // a layer Sextant keeps no data in has no alarms
    }
    List<AlarmQueries.EntityFilter> entities = new ArrayList<>();
    List<Map<String, Object>> entityArgs = (List<Map<String, Object>>) c.get("entities");
    if (entityArgs != null) {
      entityArgs.forEach(e -> entities.add(entityFilter(e)));
    }
    return msgs(alarms.alarms(condition((Map<String, Object>) c.get("duration"), null, (String) c.get("keyword"),
        (List<Map<String, Object>>) c.get("tags"), (Map<String, Object>) c.get("paging")),
        new AlarmQueries.Narrowing(entities, layer, (List<String>) c.get("ruleNames"))));
  }

  private AlarmQueries.Condition condition(Map<String, Object> duration, String scope, String keyword,
      List<Map<String, Object>> tagArgs, Map<String, Object> paging) {
    long[] range = range(duration);
    Integer pageNum = paging == null ? null : (Integer) paging.get("pageNum");
    Integer pageSize = paging == null ? null : (Integer) paging.get("pageSize");
    List<AlarmQueries.TagFilter> tags = new ArrayList<>();
    if (tagArgs != null) {
      for (Map<String, Object> tag : tagArgs) {
        if (tag != null) {
          tags.add(new AlarmQueries.TagFilter((String) tag.get("key"), (String) tag.get("value")));
        }
      }
    }
    return new AlarmQueries.Condition(range[0], range[1], scope, keyword, tags, pageNum == null ? 1 : pageNum,
        pageSize == null ? 20 : pageSize);
  }

  private static Map<String, Object> msgs(List<AlarmMessage> found) {
    List<Map<String, Object>> msgs = new ArrayList<>();
    found.forEach(m -> msgs.add(message(m)));
    return Map.of("msgs", msgs);
  }

  private static Layer layer(String name) {
    try {
      return Layer.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * An MQE entity as the alarms it names: one entity's id (its alarms and those of the relations it
   * is an end of), or a relation's two ends when a destination is given. The scope is not needed.
   */
  private static AlarmQueries.EntityFilter entityFilter(Map<String, Object> e) {
    String service = (String) e.get("serviceName");
    if (service == null || service.isEmpty()) {
      throw new IllegalArgumentException("an alarm entity needs its serviceName");
    }
    String source = child(EntityIds.serviceId(service, !Boolean.FALSE.equals(e.get("normal"))),
        (String) e.get("serviceInstanceName"), (String) e.get("endpointName"));
    String destService = (String) e.get("destServiceName");
    if (destService == null || destService.isEmpty()) {
      return new AlarmQueries.EntityFilter(source, null);
    }
    return new AlarmQueries.EntityFilter(source, child(EntityIds.serviceId(destService,
        !Boolean.FALSE.equals(e.get("destNormal"))), (String) e.get("destServiceInstanceName"),
        (String) e.get("destEndpointName")));
  }

  private static String child(String serviceId, String instance, String endpoint) {
    if (instance != null && !instance.isEmpty()) {
      return EntityIds.instanceId(serviceId, instance);
    }
    return endpoint != null && !endpoint.isEmpty() ? EntityIds.endpointId(serviceId, endpoint) : serviceId;
  }

  private long[] range(DataFetchingEnvironment env) {
    Map<String, Object> d = env.getArgument("duration");
    return range(d);
  }

  private long[] range(Map<String, Object> d) {
    if (d == null) {
      throw new IllegalArgumentException("duration is required");
    }
    String step = String.valueOf(d.get("step"));
    return new long[] {bounds.startMillis((String) d.get("start"), step),
        bounds.endMillis((String) d.get("end"), step) - 1};
  }

  /** Alarms started in each step of the duration. */
  private List<Integer> trend(DataFetchingEnvironment env) {
    long[] range = range(env);
    Map<String, Object> d = env.getArgument("duration");
    String step = String.valueOf(d.get("step"));
    long width = switch (step) {
      case "SECOND" -> 1_000L;
      case "MINUTE" -> 60_000L;
      case "HOUR" -> 3_600_000L;
      default -> 86_400_000L;
    };
    List<long[]> ranges = new ArrayList<>();
    for (long from = range[0]; from <= range[1] && ranges.size() < 10_080; from += width) {
      ranges.add(new long[] {from, Math.min(range[1], from + width - 1)});
    }
    return alarms.trend(ranges);
  }

  /** One alarm as the schema's {@code AlarmMessage}; the source keeps what {@code events} needs. */
  private static Map<String, Object> message(AlarmMessage m) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("startTime", m.startTime());
    o.put("recoveryTime", m.recovered() ? m.recoveryTime() : null);
    o.put("scope", LegacyMetricReads.scopeName(Scope.valueOf(m.scope())));
    o.put("id", m.id0());
    o.put("name", m.name());
    o.put("message", m.alarmMessage());
    List<Map<String, Object>> tags = new ArrayList<>();
    m.tags().forEach((k, v) -> tags.add(keyValue(k, v)));
    o.put("tags", tags);
    o.put("snapshot", snapshot(m));
    o.put("alarm", m);
    return o;
  }

  private static Map<String, Object> snapshot(AlarmMessage m) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("expression", m.snapshot() == null ? "" : m.snapshot().expression());
    Map<String, List<Map<String, Object>>> byMetric = new LinkedHashMap<>();
    if (m.snapshot() != null) {
      for (RuleEvaluator.MetricValues mv : m.snapshot().metrics()) {
        List<Map<String, Object>> labels = new ArrayList<>();
        mv.labels().forEach(l -> labels.add(keyValue(l.key(), l.value())));
        List<Map<String, Object>> values = new ArrayList<>();
        for (MqeValue v : mv.values()) {
          Map<String, Object> point = new LinkedHashMap<>();
          point.put("id", v.id());
          point.put("owner", null);
          point.put("value", v.value() == null ? null : BigDecimal.valueOf(v.value()).stripTrailingZeros()
              .toPlainString());
          point.put("traceID", null);
          values.add(point);
        }
        byMetric.computeIfAbsent(mv.metric(), k -> new ArrayList<>())
            .add(Map.of("metric", Map.of("labels", labels), "values", values));
      }
    }
    List<Map<String, Object>> metrics = new ArrayList<>();
    byMetric.forEach((name, results) -> metrics.add(Map.of("name", name, "results", results)));
    s.put("metrics", metrics);
    return s;
  }

  private List<Map<String, Object>> events(Map<String, Object> source) {
    AlarmMessage m = (AlarmMessage) source.get("alarm");
    long until = m.recovered() ? m.recoveryTime() : System.currentTimeMillis();
    List<Map<String, Object>> out = new ArrayList<>();
    for (String service : services(m)) {
      for (Event e : events.events(new EventQueries.Condition(null, service, null, null, null, null, null,
          m.startTime() - EVENTS_BEFORE_MILLIS, until, false, 1, EVENTS_PER_ALARM))) {
        out.add(EventArea.event(e));
      }
    }
    return out;
  }

  /** The names of the services an alarm is about (one, or both ends of a relation). */
  private static Set<String> services(AlarmMessage m) {
    Set<String> names = new LinkedHashSet<>();
    for (String id : List.of(m.id0(), m.id1())) {
      if (id == null || id.isEmpty()) {
        continue;
      }
      try {
        String serviceId = id.indexOf('_') > 0 ? EntityIds.parseChildId(id).serviceId() : id;
        names.add(EntityIds.parseServiceId(serviceId).name());
      } catch (IllegalArgumentException e) {
        // not an id of ours: no events
      }
    }
    return names;
  }

  private static Map<String, Object> keyValue(String key, String value) {
    Map<String, Object> kv = new LinkedHashMap<>();
    kv.put("key", key);
    kv.put("value", value);
    return kv;
  }

  /** The stored scope name of the query protocol's Scope; null for All (or none). */
  private static String storedScope(String queryScope) {
    if (queryScope == null || queryScope.equals("All")) {
      return null;
    }
    for (Scope s : Scope.values()) {
      if (LegacyMetricReads.scopeName(s).equals(queryScope)) {
        return s.name();
      }
    }
    return queryScope; // EndpointRelation: Sextant has no such entities, so no such alarms
  }
}
