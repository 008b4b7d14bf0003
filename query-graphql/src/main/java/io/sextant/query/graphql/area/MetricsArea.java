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

  /** Below this, ten-thousandths of a value and their halves are exact in a double (2^52 halves). */
  private static final double EXACT_TEN_THOUSANDTHS = 0x1p51 / 10_000;

  /**
   * Integral values print without decimals (as SkyWalking's do); others keep 4 places, the exact
   * binary value rounded half up with trailing zeros dropped. Every value of every answer passes
   * here: BigDecimal's arithmetic was a quarter of what a dashboard request allocated, so values of
   * a usual size round in long arithmetic instead, to the same text.
   */
  static String format(Double v) {
    if (v == null || v.isNaN() || v.isInfinite()) {
      return null;
    }
    double d = v;
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    if (Math.abs(d) >= EXACT_TEN_THOUSANDTHS) {
      return new BigDecimal(d).setScale(4, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
    long units = roundedTenThousandths(Math.abs(d));
    if (units == 0) {
      return "0";
    }
    StringBuilder text = new StringBuilder(24);
    if (d < 0) {
      text.append('-');
    }
    text.append(units / 10_000);
    int fraction = (int) (units % 10_000);
    if (fraction != 0) {
      String digits = Integer.toString(fraction + 10_000); // "1dddd": keeps the leading zeros
      int end = digits.length();
      while (digits.charAt(end - 1) == '0') {
        end--;
      }
      text.append('.').append(digits, 1, end);
    }
    return text.toString();
  }

  /**
   * {@code a * 10^4} rounded half up, exactly: the product in a double may round across an
   * integer or a half, so the candidate is corrected by the sign of the exact difference, which
   * a fused multiply-add keeps (it rounds once, and a nonzero difference does not round to zero).
   */
  private static long roundedTenThousandths(double a) {
    double floor = Math.floor(a * 10_000);
    if (Math.fma(a, 10_000, -floor) < 0) {
      floor -= 1;
    } else if (Math.fma(a, 10_000, -(floor + 1)) >= 0) {
      floor += 1;
    }
    return (long) floor + (Math.fma(a, 10_000, -(floor + 0.5)) >= 0 ? 1 : 0);
  }
}
