package io.sextant.query.graphql.area;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Scope;
import io.sextant.api.time.Step;
import io.sextant.core.metric.AggregateFunction;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.RankedEntity;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.core.query.mqe.Series;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reads behind the metric operations older than MQE (metrics-v2, metric v1, aggregation), in
 * SkyWalking 10.1's shapes over {@link MetricQueries}: a point's id is {@code <bucket>_<entity id>},
 * a bucket without data answers 0 with {@code isEmptyValue} (SkyWalking's default value), a single
 * value is the integer average of the buckets with data.
 */
final class LegacyMetricReads {
  static final int MAX_TOP_N = 1_000;
  private final MetricQueries q;

  LegacyMetricReads(MetricQueries q) {
    this.q = q;
  }

  /** A metric read by the single-valued operations; refuses an unknown or labeled one. */
  MetricDefinition regular(String name, String operation) {
    MetricDefinition def = q.definition(name);
    if (def.function().labelKey() != null) {
      throw new IllegalArgumentException("metric '" + name + "' is a labeled metric (LABELED_VALUE, label '"
          + def.function().labelKey() + "'): read it with readLabeledMetricsValues, not " + operation);
    }
    return def;
  }

  /** A metric read by the labeled operations; refuses an unknown or single-valued one. */
  MetricDefinition labeled(String name, String operation) {
    MetricDefinition def = q.definition(name);
    if (def.function().labelKey() == null) {
      throw new IllegalArgumentException("metric '" + name + "' is not a labeled metric (REGULAR_VALUE): read it"
          + " with readMetricsValues, not " + operation);
    }
    return def;
  }

  /**
   * The id of the entity a v2 {@code Entity} input names. The scope comes from the metric and a
   * scope the input states is ignored, as in SkyWalking since 9.4: swctl guesses the scope from the
   * flags it was given, e.g. Endpoint for a service metric asked with --endpoint-name.
   */
  static String entityId(MetricDefinition def, Map<String, Object> input) {
    return MetricQueries.entityId(def, MetricsArea.entity(input));
  }

  /** Checks an entity id given as is (v1 operations) against the metric's scope. */
  static String checkedId(MetricDefinition def, String id) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("metric '" + def.name() + "' needs the id of a "
          + scopeName(def.scope()) + " (Sextant has no metrics of scope All)");
    }
    switch (def.scope()) {
      case SERVICE -> EntityIds.parseServiceId(id);
      case SERVICE_INSTANCE, ENDPOINT -> EntityIds.parseChildId(id);
      case SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS, PROCESS_RELATION -> {
        // relation and process ids are compared as given
      }
    }
    return id;
  }

  /** The query protocol's name of a scope. */
  static String scopeName(Scope scope) {
    return switch (scope) {
      case SERVICE -> "Service";
      case SERVICE_INSTANCE -> "ServiceInstance";
      case ENDPOINT -> "Endpoint";
      case SERVICE_RELATION -> "ServiceRelation";
      case SERVICE_INSTANCE_RELATION -> "ServiceInstanceRelation";
      case PROCESS -> "Process";
      case PROCESS_RELATION -> "ProcessRelation";
    };
  }

  /** {@code MetricsValues} of a single-valued metric: label null, one point per bucket. */
  Map<String, Object> values(MetricDefinition def, String entityId, List<Long> buckets, Step step) {
    Series s = q.series(def, entityId, Map.of(), buckets, step).get(0);
    return metricsValues(null, s.values(), entityId, buckets);
  }

  /** The integer average of the buckets with data; null when none has any. */
  Long average(MetricDefinition def, String entityId, List<Long> buckets, Step step) {
    double sum = 0;
    int n = 0;
    for (Double v : q.series(def, entityId, Map.of(), buckets, step).get(0).values()) {
      if (v != null) {
        sum += v;
        n++;
      }
    }
    return n == 0 ? null : (long) (sum / n);
  }

  /**
   * One {@code MetricsValues} per label. A label may be given as the value ({@code 50}), as
   * {@code p=50} or {@code {p=50}}, or, for a fixed label list, as its index ({@code 0} for p50,
   * as SkyWalking's v1 operations asked); it comes back as given. No labels asks for all, each
   * labeled {@code {key=value}} as SkyWalking stores them.
   */
  List<Map<String, Object>> labeledValues(MetricDefinition def, String entityId, List<String> labels,
      List<Long> buckets, Step step) {
    AggregateFunction fn = def.function();
    Map<String, String> asked = new LinkedHashMap<>();
    for (String label : labels == null ? List.<String>of() : labels) {
      if (label != null && !label.isBlank()) {
        asked.putIfAbsent(labelValue(def, label.trim()), label);
      }
    }
    Map<String, String> selector = asked.isEmpty() ? Map.of() : Map.of(fn.labelKey(), String.join(",", asked.keySet()));
    List<Map<String, Object>> out = new ArrayList<>();
    for (Series s : q.series(def, entityId, selector, buckets, step)) {
      KeyValue kv = s.labels().get(0);
      String label = asked.getOrDefault(kv.value(), "{" + kv.key() + "=" + kv.value() + "}");
      out.add(metricsValues(label, s.values(), entityId, buckets));
    }
    return out;
  }

  private static String labelValue(MetricDefinition def, String label) {
    AggregateFunction fn = def.function();
    String text = label.startsWith("{") && label.endsWith("}") ? label.substring(1, label.length() - 1) : label;
    int eq = text.indexOf('=');
    if (eq >= 0) {
      String key = text.substring(0, eq).trim();
      if (!key.equals(fn.labelKey())) {
        throw new IllegalArgumentException("metric '" + def.name() + "' has no label '" + key + "' (it has '"
            + fn.labelKey() + "')");
      }
      text = text.substring(eq + 1).trim();
    }
    List<String> fixed = fn.labelValues();
    if (fixed.isEmpty() || fixed.contains(text)) {
      return text;
    }
    try {
      int index = Integer.parseInt(text);
      if (index >= 0 && index < fixed.size()) {
        return fixed.get(index);
      }
    } catch (NumberFormatException e) {
      // not an index: refused below
    }
    throw new IllegalArgumentException("metric '" + def.name() + "' has no label " + label + "; its labels are "
        + fn.labelKey() + "=" + fixed + " (or their indexes 0.." + (fixed.size() - 1) + ")");
  }

  private static Map<String, Object> metricsValues(String label, Double[] values, String entityId,
      List<Long> buckets) {
    List<Map<String, Object>> points = new ArrayList<>(values.length);
    for (int i = 0; i < values.length; i++) {
      points.add(point(buckets.get(i) + "_" + entityId, values[i]));
    }
    Map<String, Object> out = new HashMap<>();
    out.put("label", label);
    out.put("values", Map.of("values", points));
    return out;
  }

  private static Map<String, Object> point(String id, Double value) {
    return Map.of("id", id, "value", value == null ? 0L : value.longValue(), "isEmptyValue", value == null);
  }

  /**
   * Entities ranked by the average of their values ({@code SelectedRecord}s): instances and
   * endpoints are named {@code <service> - <name>} in a global list and by their own name under a
   * parent service, as SkyWalking names them.
   */
  List<Map<String, Object>> sorted(String name, String parentService, Boolean normal, int topN,
      boolean ascending, List<Long> buckets, Step step) {
    MetricDefinition def = regular(name, "sortMetrics");
    if (!sortable(def.scope())) {
      throw new IllegalArgumentException("metric '" + name + "' is a " + scopeName(def.scope())
          + " metric: sorting accepts only Service, ServiceInstance and Endpoint metrics");
    }
    if (topN < 1 || topN > MAX_TOP_N) {
      throw new IllegalArgumentException("topN must be between 1 and " + MAX_TOP_N + ", was " + topN);
    }
    boolean global = parentService == null || parentService.isEmpty();
    MqeEntity parent = new MqeEntity(global ? null : parentService, normal, null, null, null, null, null, null,
        null, null);
    List<Map<String, Object>> out = new ArrayList<>();
    for (RankedEntity r : q.rank(name, topN, ascending, List.of(), parent, buckets, step)) {
      Map<String, Object> record = new HashMap<>();
      record.put("id", r.entityId());
      record.put("name", displayName(def.scope(), r.entityId(), global));
      record.put("value", String.valueOf((long) r.value()));
      record.put("refId", null);
      out.add(record);
    }
    return out;
  }

  private static boolean sortable(Scope scope) {
    return switch (scope) {
      case SERVICE, SERVICE_INSTANCE, ENDPOINT -> true;
      case SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS, PROCESS_RELATION -> false;
    };
  }

  /** Only sortable kinds come here. */
  private static String displayName(Scope scope, String id, boolean global) {
    if (scope == Scope.SERVICE) {
      return EntityIds.parseServiceId(id).name();
    }
    EntityIds.ChildIdParts child = EntityIds.parseChildId(id);
    return global ? EntityIds.parseServiceId(child.serviceId()).name() + " - " + child.name() : child.name();
  }

  /** readHeatMap and getThermodynamic need a histogram metric, which Sextant does not have. */
  IllegalArgumentException noHistogram(String name) {
    MetricDefinition def = q.definition(name);
    return new IllegalArgumentException("metric '" + name + "' is not a heatmap metric (it is a "
        + def.function().name() + " metric): a heatmap needs a histogram metric,"
        + " and Sextant has none");
  }
}
