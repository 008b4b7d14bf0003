package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.QueryDuration;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The oldest metric operations, which name entities by id: metric.graphqls ({@code getValues},
 * {@code getLinearIntValues}, {@code getMultipleLinearIntValues},
 * {@code getSubsetOfMultipleLinearIntValues}; {@code getThermodynamic} is refused with the reason)
 * and aggregation.graphqls (the five {@code get*TopN}), answered as SkyWalking 10.1 answers them:
 * through the same reads as the v2 operations.
 */
public record MetricsV1Area(MetricQueries q, QueryLimits limits) implements SchemaArea {
  /** Most ids in one {@code getValues}, and most lines in one multiple-linear read. */
  static final int MAX_IDS = 1_000;
  static final int MAX_LINES = 100;

  @Override
  public void wire(RuntimeWiring.Builder w) {
    LegacyMetricReads reads = new LegacyMetricReads(q);
    w.type("Query", t -> t
        .dataFetcher("getValues", safe(env -> {
          Map<String, Object> m = env.getArgument("metric");
          MetricDefinition def = reads.regular((String) m.get("name"), "getValues");
          List<String> ids = ids(m);
          QueryDuration d = duration(env, limits);
          List<Map<String, Object>> values = new ArrayList<>();
          for (String id : ids) {
            Long v = reads.average(def, LegacyMetricReads.checkedId(def, id), d.buckets(limits.maxDurationPoints()),
                d.step());
            values.add(Map.of("id", id, "value", v == null ? 0L : v, "isEmptyValue", v == null));
          }
          return Map.of("values", values);
        }))
        .dataFetcher("getLinearIntValues", safe(env -> {
          Map<String, Object> m = env.getArgument("metric");
          MetricDefinition def = reads.regular((String) m.get("name"), "getLinearIntValues");
          QueryDuration d = duration(env, limits);
          return reads.values(def, LegacyMetricReads.checkedId(def, (String) m.get("id")),
              d.buckets(limits.maxDurationPoints()), d.step()).get("values");
        }))
        .dataFetcher("getMultipleLinearIntValues", safe(env -> {
          int lines = env.getArgument("numOfLinear");
          if (lines < 1 || lines > MAX_LINES) {
            throw new IllegalArgumentException("numOfLinear must be between 1 and " + MAX_LINES + ", was " + lines);
          }
          List<String> labels = new ArrayList<>();
          for (int i = 0; i < lines; i++) {
            labels.add(String.valueOf(i));
          }
          return lines(reads, env, labels, "getMultipleLinearIntValues");
        }))
        .dataFetcher("getSubsetOfMultipleLinearIntValues", safe(env -> {
          List<Integer> indexes = env.getArgument("linearIndex");
          if (indexes.size() > MAX_LINES) {
            throw new IllegalArgumentException("at most " + MAX_LINES + " linear indexes, was " + indexes.size());
          }
          return lines(reads, env, indexes.stream().map(String::valueOf).toList(),
              "getSubsetOfMultipleLinearIntValues");
        }))
        .dataFetcher("getThermodynamic", safe(env -> {
          Map<String, Object> m = env.getArgument("metric");
          throw reads.noHistogram((String) m.get("name"));
        }))
        .dataFetcher("getServiceTopN", topN(reads, false))
        .dataFetcher("getAllServiceInstanceTopN", topN(reads, false))
        .dataFetcher("getServiceInstanceTopN", topN(reads, true))
        .dataFetcher("getAllEndpointTopN", topN(reads, false))
        .dataFetcher("getEndpointTopN", topN(reads, true)));
  }

  @SuppressWarnings("unchecked")
  private static List<String> ids(Map<String, Object> metric) {
    List<String> ids = (List<String>) metric.get("ids");
    if (ids.size() > MAX_IDS) {
      throw new IllegalArgumentException("at most " + MAX_IDS + " ids, was " + ids.size());
    }
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("metric '" + metric.get("name")
          + "' needs ids: Sextant has no metrics of scope All");
    }
    return ids;
  }

  /** One IntValues per label, in the order asked; labels without a line are left out, as SkyWalking does. */
  private Object lines(LegacyMetricReads reads, DataFetchingEnvironment env, List<String> labels, String operation) {
    Map<String, Object> m = env.getArgument("metric");
    MetricDefinition def = reads.labeled((String) m.get("name"), operation);
    QueryDuration d = duration(env, limits);
    List<Map<String, Object>> byLabel = reads.labeledValues(def, LegacyMetricReads.checkedId(def, (String) m.get("id")),
        labels, d.buckets(limits.maxDurationPoints()), d.step());
    List<Object> out = new ArrayList<>();
    for (String label : labels) {
      byLabel.stream().filter(v -> label.equals(v.get("label"))).findFirst().ifPresent(v -> out.add(v.get("values")));
    }
    return out;
  }

  private DataFetcher<Object> topN(LegacyMetricReads reads, boolean underService) {
    return safe(env -> {
      String parent = null;
      Boolean normal = null;
      if (underService) {
        EntityIds.ServiceIdParts service = EntityIds.parseServiceId(env.getArgument("serviceId"));
        parent = service.name();
        normal = service.normal();
      }
      QueryDuration d = duration(env, limits);
      List<Map<String, Object>> out = new ArrayList<>();
      for (Map<String, Object> r : reads.sorted(env.getArgument("name"), parent, normal,
          env.getArgument("topN"), "ASC".equals(String.valueOf((Object) env.getArgument("order"))),
          d.buckets(limits.maxDurationPoints()), d.step())) {
        Map<String, Object> entity = new HashMap<>();
        entity.put("id", r.get("id"));
        entity.put("name", r.get("name"));
        entity.put("value", Long.parseLong((String) r.get("value")));
        out.add(entity);
      }
      return out;
    });
  }
}
