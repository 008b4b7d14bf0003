package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.core.query.MetadataQueries;
import io.sextant.core.query.QueryDuration;
import io.sextant.core.query.SkyWalkingTtl;
import io.sextant.query.graphql.Fetchers;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** metadata-v2.graphqls (and the v1 aliases swctl still calls): services, instances, endpoints. */
public record MetadataArea(MetadataQueries q, QueryLimits limits) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("listLayers", safe(env -> q.layers()))
        .dataFetcher("listServices", safe(env -> services(q.services(env.getArgument("layer")))))
        .dataFetcher("getAllServices", safe(env -> {
          duration(env, limits);
          String group = env.getArgument("group");
          return services(q.services(null)).stream()
              .filter(s -> group == null || group.isEmpty() || group.equals(s.get("group")))
              .toList();
        }))
        .dataFetcher("searchServices", safe(env -> {
          duration(env, limits);
          String keyword = env.getArgument("keyword");
          return services(q.services(null)).stream()
              .filter(s -> ((String) s.get("name")).contains(keyword)).toList();
        }))
        .dataFetcher("findService", safe(env -> q.findService(env.getArgument("serviceName"))
            .map(MetadataArea::service).orElse(null)))
        .dataFetcher("searchService", safe(env -> q.findService(env.getArgument("serviceCode"))
            .map(MetadataArea::service).orElse(null)))
        .dataFetcher("getService", safe(env -> {
          String id = env.getArgument("serviceId");
          if (!Fetchers.selectsService(id)) {
            return null;
          }
          return q.service(id).map(MetadataArea::service).orElse(null);
        }))
        .dataFetcher("listInstances", safe(env -> instances(q, env.getArgument("serviceId"), env, limits)))
        .dataFetcher("getServiceInstances", safe(env -> instances(q, env.getArgument("serviceId"), env, limits)))
        .dataFetcher("getInstance", safe(env -> {
          String id = env.getArgument("instanceId");
          if (!Fetchers.selectsChild(id)) {
            return null;
          }
          return q.instance(id).map(MetadataArea::instance).orElse(null);
        }))
        .dataFetcher("listInstancesByName", safe(env ->
            instances(q, EntityConditions.serviceId(env.getArgument("service")), env, limits)))
        .dataFetcher("findEndpoint", safe(env -> endpoints(q, env.getArgument("serviceId"),
            env.getArgument("keyword"), env.getArgument("limit"), seenIn(env, limits))))
        .dataFetcher("findEndpointByName", safe(env -> endpoints(q,
            EntityConditions.serviceId(env.getArgument("service")), env.getArgument("keyword"),
            env.getArgument("limit"), seenIn(env, limits))))
        .dataFetcher("getMetricsTTL", safe(env -> metricsTtl(q.retention())))
        .dataFetcher("getRecordsTTL", safe(env -> SkyWalkingTtl.records(q.retention())))
        .dataFetcher("searchEndpoint", safe(env -> endpoints(q, env.getArgument("serviceId"),
            env.getArgument("keyword"), env.getArgument("limit"), null)))
        .dataFetcher("getEndpointInfo", safe(env -> {
          String id = env.getArgument("endpointId");
          if (!Fetchers.selectsChild(id)) {
            return null;
          }
          return q.endpoint(id).map(e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", e.id());
            m.put("name", e.name());
            m.put("serviceId", e.serviceId());
            m.put("serviceName", EntityIds.parseServiceId(e.serviceId()).name());
            return m;
          }).orElse(null);
        })));
  }

  /** SkyWalking's MetricsTTL; Sextant keeps metadata as long as minutes. */
  private static Map<String, Object> metricsTtl(Retention r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("metadata", r.minuteDays());
    m.putAll(SkyWalkingTtl.metrics(r));
    return m;
  }

  static List<Map<String, Object>> services(List<ServiceMeta> list) {
    return list.stream().map(MetadataArea::service).toList();
  }

  static Map<String, Object> service(ServiceMeta s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("name", s.name());
    // SkyWalking's convention: "group::name" names a group.
    int sep = s.name().indexOf("::");
    m.put("group", sep > 0 ? s.name().substring(0, sep) : "");
    m.put("shortName", sep > 0 ? s.name().substring(sep + 2) : s.name());
    m.put("layers", new ArrayList<>(s.layers()));
    m.put("normal", s.normal());
    return m;
  }

  private static List<Map<String, Object>> instances(MetadataQueries q, String serviceId,
      graphql.schema.DataFetchingEnvironment env, QueryLimits limits) {
    QueryDuration d = duration(env, limits);
    if (!Fetchers.selectsService(serviceId)) {
      return List.of(); // as SkyWalking: a dashboard with no service selected asks with ""
    }
    return q.instances(serviceId, d).stream().map(MetadataArea::instance).toList();
  }

  static Map<String, Object> instance(InstanceMeta i) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", i.id());
    m.put("name", i.name());
    List<Map<String, String>> attributes = new ArrayList<>();
    i.attributes().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> attributes.add(Map.of("name", e.getKey(), "value", e.getValue())));
    m.put("attributes", attributes);
    m.put("language", "UNKNOWN");
    m.put("instanceUUID", i.id());
    return m;
  }

  /** The optional duration of findEndpoint (SkyWalking 10.2): only endpoints seen in it; null for all. */
  private static QueryDuration seenIn(graphql.schema.DataFetchingEnvironment env, QueryLimits limits) {
    return env.getArgument("duration") == null ? null : duration(env, limits);
  }

  private static List<Map<String, Object>> endpoints(MetadataQueries q, String serviceId, String keyword,
      Integer limit, QueryDuration seenIn) {
    if (limit == null || limit < 0) {
      throw new IllegalArgumentException("limit must be a non-negative number");
    }
    if (!Fetchers.selectsService(serviceId)) {
      return List.of();
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (EndpointMeta e : q.endpoints(serviceId, keyword, Math.min(limit, 10_000), seenIn)) {
      out.add(Map.of("id", e.id(), "name", e.name()));
    }
    return out;
  }
}
