package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.event.Event;
import io.sextant.core.query.EventQueries;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** event.graphqls: {@code queryEvents}. Duration bounds are read in the server's zone. */
public record EventArea(EventQueries q, DurationBounds bounds) implements SchemaArea {

  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t.dataFetcher("queryEvents", safe(env -> {
      Map<String, Object> condition = env.getArgument("condition");
      if (condition == null) {
        throw new IllegalArgumentException("condition is required");
      }
      List<Map<String, Object>> events = new ArrayList<>();
      for (Event e : q.events(condition(condition))) {
        events.add(event(e));
      }
      return Map.of("events", events);
    })));
  }

  @SuppressWarnings("unchecked")
  private EventQueries.Condition condition(Map<String, Object> c) {
    Map<String, Object> source = c.get("source") == null ? Map.of() : (Map<String, Object>) c.get("source");
    Map<String, Object> paging = (Map<String, Object>) c.get("paging");
    if (paging == null) {
      throw new IllegalArgumentException("paging is required");
    }
    Long after = null;
    Long before = null;
    Map<String, Object> time = (Map<String, Object>) c.get("time");
    if (time != null) {
      String step = String.valueOf(time.get("step"));
      after = bounds.startMillis((String) time.get("start"), step);
      before = bounds.endMillis((String) time.get("end"), step);
    }
    Integer pageNum = (Integer) paging.get("pageNum");
    return new EventQueries.Condition((String) c.get("uuid"), (String) source.get("service"),
        (String) source.get("serviceInstance"), (String) source.get("endpoint"), (String) c.get("name"),
        (String) c.get("type"), (String) c.get("layer"), after, before, "ASC".equals(c.get("order")),
        pageNum == null ? 1 : pageNum, (Integer) paging.get("pageSize"));
  }

  /** One event as the schema's {@code Event}: no parameters answer null, as SkyWalking does. */
  static Map<String, Object> event(Event e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("uuid", e.uuid());
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("service", e.service());
    source.put("serviceInstance", e.serviceInstance());
    source.put("endpoint", e.endpoint());
    m.put("source", source);
    m.put("name", e.name());
    m.put("type", e.type());
    m.put("message", e.message());
    List<Map<String, Object>> parameters = new ArrayList<>();
    e.parameters().forEach((k, v) -> {
      Map<String, Object> kv = new LinkedHashMap<>();
      kv.put("key", k);
      kv.put("value", v);
      parameters.add(kv);
    });
    m.put("parameters", parameters.isEmpty() ? null : parameters);
    m.put("startTime", e.startTime());
    m.put("endTime", e.endTime());
    m.put("layer", e.layer());
    return m;
  }
}
