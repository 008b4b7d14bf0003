package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.query.ProcessQueries;
import io.sextant.query.graphql.Fetchers;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The process operations of metadata-v2.graphqls: {@code listProcesses}, {@code getProcess},
 * {@code estimateProcessScale}. An empty id selects nothing (an empty list, null, 0), as in
 * SkyWalking; a malformed service id or duration is an error.
 */
public record ProcessArea(ProcessQueries q, QueryLimits limits, TimeBuckets time) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("listProcesses", safe(env -> {
          var d = duration(env, limits);
          String instanceId = env.getArgument("instanceId");
          if (Fetchers.isEmpty(instanceId)) {
            return List.of();
          }
          return q.processes(instanceId, d).stream().map(ProcessArea::process).toList();
        }))
        .dataFetcher("getProcess", safe(env -> {
          String id = env.getArgument("processId");
          return Fetchers.isEmpty(id) ? null : q.process(id).map(ProcessArea::process).orElse(null);
        }))
        .dataFetcher("estimateProcessScale", safe(env -> {
          String serviceId = env.getArgument("serviceId");
          if (!Fetchers.selectsService(serviceId)) {
            return 0L;
          }
          List<String> labels = env.getArgument("labels");
          long since = time.minuteBucket(time.nowMillis() - TimeUnit.MINUTES.toMillis(ProcessQueries.ESTIMATE_MINUTES));
          return q.estimateScale(serviceId, labels == null ? List.of() : labels, since);
        })));
  }

  /**
   * A process as SkyWalking 10.1 shows it: service and instance names from the ids, the detect type
   * {@code UNDEFINED} until a report said it, every property of the process as an attribute.
   */
  public static Map<String, Object> process(ProcessMeta p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", p.id());
    m.put("name", p.name());
    m.put("serviceId", p.serviceId());
    m.put("serviceName", EntityIds.parseServiceId(p.serviceId()).name());
    m.put("instanceId", p.instanceId());
    m.put("instanceName", EntityIds.parseChildId(p.instanceId()).name());
    m.put("agentId", p.agentId());
    m.put("detectType", p.detectType().isEmpty() ? "UNDEFINED" : p.detectType());
    List<Map<String, String>> attributes = new ArrayList<>();
    p.properties().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> attributes.add(Map.of("name", e.getKey(), "value", e.getValue())));
    m.put("attributes", attributes);
    m.put("labels", p.labels());
    return m;
  }
}
