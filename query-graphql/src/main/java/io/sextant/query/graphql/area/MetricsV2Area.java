package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.concurrent;
import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.DataFetchingEnvironment;
import graphql.schema.idl.RuntimeWiring;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.QueryDuration;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * metrics-v2.graphqls, the metric operations swctl 0.14 and dashboards older than MQE call:
 * {@code readMetricsValue}, {@code readNullableMetricsValue}, {@code readMetricsValues},
 * {@code readLabeledMetricsValues}, {@code sortMetrics} and {@code readHeatMap} (refused with the
 * reason: Sextant has no histogram metrics). The sampled-record reads are {@link RecordsArea}'s.
 * Dashboards built before MQE ask for a page's values as aliased fields of one request, so the
 * value reads run at once on {@code pool}, as {@code execExpression} fields do.
 */
public record MetricsV2Area(MetricQueries q, QueryLimits limits, Executor pool) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    LegacyMetricReads reads = new LegacyMetricReads(q);
    w.type("Query", t -> t
        .dataFetcher("readMetricsValue", concurrent(pool, safe(env -> {
          Long v = average(reads, env, "readMetricsValue");
          return v == null ? 0L : v;
        })))
        .dataFetcher("readNullableMetricsValue", concurrent(pool, safe(env -> {
          Long v = average(reads, env, "readNullableMetricsValue");
          return Map.of("value", v == null ? 0L : v, "isEmptyValue", v == null);
        })))
        .dataFetcher("readMetricsValues", concurrent(pool, safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          MetricDefinition def = reads.regular((String) c.get("name"), "readMetricsValues");
          QueryDuration d = duration(env, limits);
          return reads.values(def, LegacyMetricReads.entityId(def, entity(c)), d.buckets(limits.maxDurationPoints()),
              d.step());
        })))
        .dataFetcher("readLabeledMetricsValues", concurrent(pool, safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          MetricDefinition def = reads.labeled((String) c.get("name"), "readLabeledMetricsValues");
          QueryDuration d = duration(env, limits);
          List<String> labels = env.getArgument("labels");
          return reads.labeledValues(def, LegacyMetricReads.entityId(def, entity(c)), labels,
              d.buckets(limits.maxDurationPoints()), d.step());
        })))
        .dataFetcher("sortMetrics", concurrent(pool, safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          QueryDuration d = duration(env, limits);
          return reads.sorted((String) c.get("name"), (String) c.get("parentService"), (Boolean) c.get("normal"),
              (Integer) c.get("topN"),
              "ASC".equals(String.valueOf(c.get("order"))), d.buckets(limits.maxDurationPoints()), d.step());
        })))
        .dataFetcher("readHeatMap", safe(env -> {
          Map<String, Object> c = env.getArgument("condition");
          throw reads.noHistogram((String) c.get("name"));
        })));
  }

  private Long average(LegacyMetricReads reads, DataFetchingEnvironment env, String operation) {
    Map<String, Object> c = env.getArgument("condition");
    MetricDefinition def = reads.regular((String) c.get("name"), operation);
    QueryDuration d = duration(env, limits);
    return reads.average(def, LegacyMetricReads.entityId(def, entity(c)), d.buckets(limits.maxDurationPoints()),
        d.step());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> entity(Map<String, Object> condition) {
    return (Map<String, Object>) condition.get("entity");
  }
}
