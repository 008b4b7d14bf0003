package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.concurrent;
import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.QueryDuration;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.MetricKind;
import io.sextant.core.query.mqe.Mqe;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.core.query.mqe.MqeOwner;
import io.sextant.core.query.mqe.MqeResult;
import io.sextant.core.query.mqe.MqeSeries;
import io.sextant.core.query.mqe.MqeValue;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * metrics-v3.graphqls: MQE ({@code execExpression}) and the metric catalogue. {@code time} names each
 * point by its bucket's first instant in epoch milliseconds, as SkyWalking does.
 */
public record MetricsArea(MetricQueries q, QueryLimits limits, Executor expressions, TimeBuckets time)
    implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("listMetrics", safe(env -> q.listMetrics(env.getArgument("regex")).stream()
            .map(MetricsArea::definition).toList()))
        .dataFetcher("typeOfMetrics", safe(env -> typeOf(env.getArgument("name"))))
        .dataFetcher("execExpression", concurrent(expressions, safe(env -> {
          QueryDuration d = duration(env, limits);
          MqeEntity entity = entity(env.getArgument("entity"));
          MqeResult r = Mqe.evaluate((String) env.getArgument("expression"), q, entity,
              d.buckets(limits.maxDurationPoints()), d.step(),
              bucket -> Long.toString(time.startMillis(bucket, d.step())));
          return result(r);
        }))));
  }

  private String typeOf(String name) {
    MetricKind kind = q.kind(name);
    return kind == null ? "UNKNOWN" : switch (kind) {
      case REGULAR -> "REGULAR_VALUE";
      case LABELED -> "LABELED_VALUE";
      case SAMPLED_RECORD -> "SAMPLED_RECORD";
    };
  }

  private static Map<String, Object> definition(MetricDefinition d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", d.name());
    m.put("type", d.function().labelKey() == null ? "REGULAR_VALUE" : "LABELED_VALUE");
    m.put("catalog", d.scope().name());
    return m;
  }

  static MqeEntity entity(Map<String, Object> e) {
    Map<String, Object> m = e == null ? new HashMap<>() : e;
    return new MqeEntity((String) m.get("serviceName"), (Boolean) m.get("normal"),
        (String) m.get("serviceInstanceName"), (String) m.get("endpointName"), (String) m.get("processName"),
        (String) m.get("destServiceName"), (Boolean) m.get("destNormal"), (String) m.get("destServiceInstanceName"),
        (String) m.get("destEndpointName"), (String) m.get("destProcessName"));
  }

  private static Map<String, Object> result(MqeResult r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", r.type().name());
    List<Map<String, Object>> results = new ArrayList<>();
    for (MqeSeries s : r.results()) {
      List<Map<String, Object>> labels = new ArrayList<>();
      for (KeyValue kv : s.labels()) {
        labels.add(Map.of("key", kv.key(), "value", kv.value()));
      }
      List<Map<String, Object>> values = new ArrayList<>();
      for (MqeValue v : s.values()) {
        Map<String, Object> value = new HashMap<>();
        value.put("id", v.id());
        value.put("value", format(v.value()));
        value.put("traceID", v.traceId());
        value.put("owner", owner(v.owner()));
        values.add(value);
      }
      results.add(Map.of("metric", Map.of("labels", labels), "values", values));
    }
    out.put("results", results);
    out.put("error", r.error());
    return out;
  }

  /** SkyWalking 10.2's Owner of a ranked value; null for values that belong to no one entity. */
  private static Map<String, Object> owner(MqeOwner o) {
    if (o == null) {
      return null;
    }
    Map<String, Object> m = new HashMap<>();
    m.put("scope", o.scope());
    m.put("serviceID", o.serviceId());
    m.put("serviceName", o.serviceName());
    m.put("normal", o.normal());
    m.put("serviceInstanceID", o.instanceId());
    m.put("serviceInstanceName", o.instanceName());
    m.put("endpointID", o.endpointId());
    m.put("endpointName", o.endpointName());
    return m;
  }

  /** Integral values print without decimals (as SkyWalking's do); others keep 4 places. */
  static String format(Double v) {
    if (v == null || v.isNaN() || v.isInfinite()) {
      return null;
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString(v.longValue());
    }
    return new BigDecimal(v).setScale(4, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
  }
}
