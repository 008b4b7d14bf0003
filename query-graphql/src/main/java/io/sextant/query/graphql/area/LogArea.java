package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.api.log.LogEntry;
import io.sextant.core.query.LogQueries;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * log.graphqls and log-10.4: {@code queryLogs}, {@code queryLogsByName}, {@code
 * supportQueryLogsByKeywords} (true: keywords are matched in process) and the tag autocompletion.
 * Sextant keeps no trace ids with its logs, so a condition on a trace ({@code relatedTrace} with a
 * trace id) answers no logs; one with an empty trace id (swctl always sends it) is no condition.
 * {@code test} (LAL) stays refused. Duration bounds are read in the server's zone, at any step
 * (Horizon sends {@code SECOND}); {@code coldStage} is ignored.
 */
public record LogArea(LogQueries q, DurationBounds bounds) implements SchemaArea {
  /** SkyWalking's own message. */
  static final String NO_WINDOW = "The condition must contains either queryDuration or relatedTrace.";

  private static final Set<String> CONTENT_TYPES = Set.of("TEXT", "JSON", "YAML");

  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("queryLogs", safe(env -> logs(env.getArgument("condition"), false)))
        .dataFetcher("queryLogsByName", safe(env -> logs(env.getArgument("condition"), true)))
        .dataFetcher("supportQueryLogsByKeywords", env -> true)
        .dataFetcher("queryLogTagAutocompleteKeys", safe(env -> {
          Map<String, Object> d = env.getArgument("duration");
          return q.tagKeys(start(d), end(d));
        }))
        .dataFetcher("queryLogTagAutocompleteValues", safe(env -> {
          Map<String, Object> d = env.getArgument("duration");
          return q.tagValues(env.getArgument("tagKey"), start(d), end(d));
        })));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> logs(Map<String, Object> c, boolean byName) {
    if (c == null) {
      throw new IllegalArgumentException(NO_WINDOW);
    }
    Map<String, Object> duration = (Map<String, Object>) c.get("queryDuration");
    Map<String, Object> trace = (Map<String, Object>) c.get("relatedTrace");
    boolean onTrace = trace != null && trace.get("traceId") != null && !trace.get("traceId").toString().isBlank();
    if (duration == null && !onTrace) {
      throw new IllegalArgumentException(NO_WINDOW);
    }
    if (onTrace) {
      return answer(List.of()); // no log of Sextant's is about a trace
    }
    Map<String, Object> paging = (Map<String, Object>) c.get("paging");
    if (paging == null || paging.get("pageSize") == null) {
      throw new IllegalArgumentException("paging with a pageSize is required");
    }
    Integer pageNum = (Integer) paging.get("pageNum");
    String serviceId;
    String instanceId;
    String endpointId;
    if (byName) {
      serviceId = c.get("service") == null ? null : EntityConditions.serviceId((Map<String, Object>) c.get("service"));
      instanceId = c.get("instance") == null ? null
          : EntityConditions.instanceId((Map<String, Object>) c.get("instance"));
      endpointId = c.get("endpoint") == null ? null
          : EntityConditions.endpointId((Map<String, Object>) c.get("endpoint"));
    } else {
      serviceId = (String) c.get("serviceId");
      instanceId = (String) c.get("serviceInstanceId");
      endpointId = (String) c.get("endpointId");
    }
    List<LogEntry.Tag> tags = new ArrayList<>();
    List<Map<String, Object>> given = (List<Map<String, Object>>) c.get("tags");
    for (Map<String, Object> tag : given == null ? List.<Map<String, Object>>of() : given) {
      tags.add(new LogEntry.Tag((String) tag.get("key"), (String) tag.get("value")));
    }
    List<LogEntry> found = q.logs(new LogQueries.Condition(serviceId, instanceId, endpointId, start(duration),
        end(duration), tags, (List<String>) c.get("keywordsOfContent"),
        (List<String>) c.get("excludingKeywordsOfContent"), "ASC".equals(String.valueOf(c.get("queryOrder"))),
        pageNum == null ? 1 : pageNum, (Integer) paging.get("pageSize")));
    List<Map<String, Object>> logs = new ArrayList<>(found.size());
    found.forEach(l -> logs.add(log(l)));
    return answer(logs);
  }

  private static Map<String, Object> answer(List<Map<String, Object>> logs) {
    Map<String, Object> m = new HashMap<>();
    m.put("errorReason", null);
    m.put("logs", logs);
    m.put("debuggingTrace", null);
    return m;
  }

  /** One log as the schema's {@code Log}; no trace id, no instance or endpoint when not known. */
  static Map<String, Object> log(LogEntry l) {
    String serviceId = EntityIds.serviceId(l.service(), true);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("serviceName", l.service());
    m.put("serviceId", serviceId);
    m.put("serviceInstanceName", l.instance().isEmpty() ? null : l.instance());
    m.put("serviceInstanceId", l.instance().isEmpty() ? null : EntityIds.instanceId(serviceId, l.instance()));
    m.put("endpointName", l.endpoint().isEmpty() ? null : l.endpoint());
    m.put("endpointId", l.endpoint().isEmpty() ? null : EntityIds.endpointId(serviceId, l.endpoint()));
    m.put("traceId", null);
    m.put("timestamp", l.timeMillis());
    m.put("contentType", CONTENT_TYPES.contains(l.contentType()) ? l.contentType() : "TEXT");
    m.put("content", l.content());
    List<Map<String, Object>> tags = new ArrayList<>(l.tags().size());
    for (LogEntry.Tag tag : l.tags()) {
      Map<String, Object> kv = new LinkedHashMap<>();
      kv.put("key", tag.key());
      kv.put("value", tag.value());
      tags.add(kv);
    }
    m.put("tags", tags);
    return m;
  }

  private long start(Map<String, Object> d) {
    return bounds.startMillis(text(d, "start"), step(d));
  }

  /** The last millisecond of the end bound's period: record windows are inclusive. */
  private long end(Map<String, Object> d) {
    return bounds.endMillis(text(d, "end"), step(d)) - 1;
  }

  private static String text(Map<String, Object> d, String key) {
    if (d == null) {
      throw new IllegalArgumentException("duration is required");
    }
    return (String) d.get(key);
  }

  private static String step(Map<String, Object> d) {
    return String.valueOf(d.get("step"));
  }
}
