package io.sextant.core.query;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.core.metric.AggregateFunction;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricState;
import io.sextant.core.query.mqe.AttributeFilter;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.MetricKind;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.core.query.mqe.MqeException;
import io.sextant.core.query.mqe.MqeOwner;
import io.sextant.core.query.mqe.RankedValue;
import io.sextant.core.query.mqe.RecordValue;
import io.sextant.core.query.mqe.Series;
import io.sextant.core.query.mqe.SeriesSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Metric reads for MQE and the metrics schema: the partials of all collectors merged per bucket.
 */
public final class MetricQueries implements SeriesSource {
  private final StorageComponent storage;
  private final MetricCatalog catalog;
  private final MetadataQueries metadata;
  private final RecordQueries records;

  public MetricQueries(StorageComponent storage, MetricCatalog catalog, MetadataQueries metadata) {
    this(storage, catalog, metadata, new RecordQueries(storage, Map.of()));
  }

  /** {@code records} answers MQE's top_n over the sampled records it keeps. */
  public MetricQueries(StorageComponent storage, MetricCatalog catalog, MetadataQueries metadata,
      RecordQueries records) {
    this.storage = storage;
    this.catalog = catalog;
    this.metadata = metadata;
    this.records = records;
  }

  public MetricCatalog catalog() {
    return catalog;
  }


  /** The merged state of each bucket that has data. */
  public Map<Long, MetricState> mergedStates(MetricDefinition def, Collection<String> entityIds, Step step,
      long start, long end) {
    Map<Long, MetricState> byBucket = new HashMap<>();
    for (MetricPartial p : storage.metrics().read(def.name(), entityIds, step, start, end)) {
      def.function().merge(byBucket.computeIfAbsent(p.bucket(), b -> new MetricState()), decode(p));
    }
    return byBucket;
  }

  private static MetricState decode(MetricPartial p) {
    return EncodedState.stored(p.values(), p.sketch()).decode();
  }

  @Override
  public MetricKind kind(String metric) {
    return catalog.find(metric)
        .map(d -> d.function().labelKey() == null ? MetricKind.REGULAR : MetricKind.LABELED)
        .orElse(records.keeps(metric) ? MetricKind.SAMPLED_RECORD : null);
  }

  @Override
  public List<RecordValue> records(String metric, int n, boolean ascending, MqeEntity entity, List<Long> buckets,
      Step step) {
    List<RecordValue> out = new ArrayList<>();
    try {
      for (SampledRecord r : records.top(metric, entity, buckets, step, n, ascending)) {
        out.add(new RecordValue(r.name(), RecordQueries.value(r), r.refId()));
      }
    } catch (IllegalArgumentException e) {
      throw new MqeException(e.getMessage());
    }
    return out;
  }

  @Override
  public List<Series> read(String metric, Map<String, String> labelSelector, MqeEntity entity, List<Long> buckets,
      Step step) {
    MetricDefinition def = definition(metric);
    return series(def, entityId(def, entity), labelSelector, buckets, step);
  }

  /**
   * The series of one entity given by its SkyWalking id (the v1 query protocol names entities by
   * id), one per selected label; values aligned with {@code buckets}, null where there is no data.
   */
  public List<Series> series(MetricDefinition def, String entityId, Map<String, String> labelSelector,
      List<Long> buckets, Step step) {
    AggregateFunction fn = def.function();
    if (fn.labelKey() != null && fn.labelValues().isEmpty()) {
      return readDataLabelled(def, entityId, labelSelector, buckets, step);
    }
    List<String> labels = selectLabels(def, labelSelector);
    Map<Long, MetricState> states = buckets.isEmpty() ? Map.of()
        : mergedStates(def, List.of(entityId), step, buckets.get(0), buckets.get(buckets.size() - 1));
    List<Series> out = new ArrayList<>();
    for (String label : labels) {
      int labelIndex = fn.labelKey() == null ? 0 : fn.labelValues().indexOf(label);
      Double[] values = new Double[buckets.size()];
      for (int i = 0; i < values.length; i++) {
        MetricState st = states.get(buckets.get(i));
        Long v = st == null ? null : fn.value(st, step, labelIndex);
        values[i] = v == null ? null : v.doubleValue();
      }
      List<KeyValue> kv = fn.labelKey() == null ? List.of() : List.of(new KeyValue(fn.labelKey(), label));
      out.add(new Series(kv, values));
    }
    return out;
  }

  /** A metric labelled from the data: each label value was stored as entity {@code <id>|<value>}. */
  private List<Series> readDataLabelled(MetricDefinition def, String entityId, Map<String, String> selector,
      List<Long> buckets, Step step) {
    AggregateFunction fn = def.function();
    for (String key : selector.keySet()) {
      if (!key.equals(fn.labelKey())) {
        throw new MqeException("metric '" + def.name() + "' has no label '" + key
            + "' (it has '" + fn.labelKey() + "')");
      }
    }
    java.util.Set<String> wanted = selector.containsKey(fn.labelKey())
        ? new java.util.HashSet<>(List.of(selector.get(fn.labelKey()).split("\\s*,\\s*"))) : null;
    String prefix = entityId + "|";
    Map<String, Map<Long, MetricState>> byLabel = new TreeMap<>();
    if (!buckets.isEmpty()) {
      for (MetricPartial p : storage.metrics().read(def.name(), null, step, buckets.get(0),
          buckets.get(buckets.size() - 1))) {
        if (!p.entityId().startsWith(prefix)) {
          continue;
        }
        String label = p.entityId().substring(prefix.length());
        if (wanted == null || wanted.contains(label)) {
          fn.merge(byLabel.computeIfAbsent(label, l -> new HashMap<>())
              .computeIfAbsent(p.bucket(), b -> new MetricState()), decode(p));
        }
      }
    }
    List<Series> out = new ArrayList<>();
    byLabel.forEach((label, states) -> {
      Double[] values = new Double[buckets.size()];
      for (int i = 0; i < values.length; i++) {
        MetricState st = states.get(buckets.get(i));
        Long v = st == null ? null : fn.value(st, step, 0);
        values[i] = v == null ? null : v.doubleValue();
      }
      out.add(new Series(List.of(new KeyValue(fn.labelKey(), label)), values));
    });
    return out;
  }

  private static List<String> selectLabels(MetricDefinition def, Map<String, String> selector) {
    AggregateFunction fn = def.function();
    if (fn.labelKey() == null) {
      if (!selector.isEmpty()) {
        throw new MqeException("metric '" + def.name() + "' has no labels, but " + selector.keySet() + " was selected");
      }
      return fn.labelValues();
    }
    for (String key : selector.keySet()) {
      if (!key.equals(fn.labelKey())) {
        throw new MqeException("metric '" + def.name() + "' has no label '" + key
            + "' (it has '" + fn.labelKey() + "')");
      }
    }
    String wanted = selector.get(fn.labelKey());
    if (wanted == null) {
      return fn.labelValues();
    }
    List<String> out = new ArrayList<>();
    for (String v : wanted.split(",")) {
      String value = v.trim();
      if (!fn.labelValues().contains(value)) {
        throw new MqeException("metric '" + def.name() + "' has no " + fn.labelKey() + "='" + value
            + "'; valid values are " + fn.labelValues());
      }
      out.add(value);
    }
    return out;
  }

  @Override
  public List<RankedValue> topN(String metric, int n, boolean ascending, List<AttributeFilter> attributes,
      MqeEntity entity, List<Long> buckets, Step step) {
    Scope scope = definition(metric).scope();
    return rank(metric, n, ascending, attributes, entity, buckets, step).stream()
        .map(r -> new RankedValue(displayName(scope, r.entityId()), r.value(), owner(scope, r.entityId())))
        .toList();
  }

  /**
   * Entities of {@code metric} ranked by the average of their values over the buckets (the ranking
   * behind MQE's top_n and the v2 {@code sortMetrics}): at most {@code n}, restricted to the layer
   * {@code attr0} and, for instance and endpoint metrics, to the entity's service when it names one.
   */
  public List<RankedEntity> rank(String metric, int n, boolean ascending, List<AttributeFilter> attributes,
      MqeEntity entity, List<Long> buckets, Step step) {
    MetricDefinition def = definition(metric);
    if (def.scope().isRelation()) {
      throw new MqeException("top_n is not supported for relation metric '" + metric + "'");
    }
    // A parent service narrows the ranking of its instances and endpoints; services rank among all.
    String onlyService = def.scope() != Scope.SERVICE && entity.serviceName() != null
        ? EntityIds.serviceId(entity.serviceName(), entity.normal() == null || entity.normal())
        : null;
    Map<String, double[]> sums = new HashMap<>();
    Map<String, Map<Long, MetricState>> byEntity = new HashMap<>();
    if (!buckets.isEmpty()) {
      for (MetricPartial p : storage.metrics().read(metric, null, step, buckets.get(0),
          buckets.get(buckets.size() - 1))) {
        def.function().merge(byEntity.computeIfAbsent(p.entityId(), k -> new HashMap<>())
            .computeIfAbsent(p.bucket(), b -> new MetricState()), decode(p));
      }
    }
    byEntity.forEach((id, states) -> {
      if (id.indexOf('|') >= 0) {
        return; // one label value of a data-labelled metric, not an entity of its own
      }
      String serviceId = serviceIdOf(def, id);
      if (onlyService != null && !onlyService.equals(serviceId)) {
        return;
      }
      if (!attributes.isEmpty() && !passes(attributes, serviceId)) {
        return;
      }
      double[] acc = new double[2];
      states.forEach((bucket, st) -> {
        Long v = def.function().value(st, step, 0);
        if (v != null) {
          acc[0] += v;
          acc[1]++;
        }
      });
      if (acc[1] > 0) {
        sums.put(id, acc);
      }
    });
    Comparator<RankedEntity> order = Comparator.comparingDouble(RankedEntity::value);
    return sums.entrySet().stream()
        .map(e -> new RankedEntity(e.getKey(), e.getValue()[0] / e.getValue()[1]))
        .sorted(ascending ? order : order.reversed())
        .limit(n)
        .toList();
  }

  /**
   * attr0 is the layer (an entity of a service in several layers has each of them); attr1..attr5 are empty, as
   * Sextant records none.
   */
  private boolean passes(List<AttributeFilter> filters, String serviceId) {
    List<String> layers = metadata.service(serviceId).map(s -> List.copyOf(s.layers())).orElse(List.of());
    for (AttributeFilter f : filters) {
      boolean pass = f.attribute().equals("attr0")
          ? (f.equal() ? layers.contains(f.value()) : !layers.contains(f.value()))
          : f.accepts("");
      if (!pass) {
        return false;
      }
    }
    return true;
  }

  private static String displayName(Scope scope, String id) {
    return switch (scope) {
      case SERVICE -> EntityIds.parseServiceId(id).name();
      case SERVICE_INSTANCE, ENDPOINT -> EntityIds.parseChildId(id).name();
      case PROCESS, SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS_RELATION ->
          throw new MqeException("top_n is not supported for " + scope + " metrics");
    };
  }

  /** SkyWalking 10.2's owner of a ranked entity: its scope, ids and names, read from its id. */
  private static MqeOwner owner(Scope scope, String id) {
    return switch (scope) {
      case SERVICE -> {
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(id);
        yield new MqeOwner("Service", id, s.name(), s.normal(), null, null, null, null);
      }
      case SERVICE_INSTANCE -> {
        EntityIds.ChildIdParts child = EntityIds.parseChildId(id);
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(child.serviceId());
        yield new MqeOwner("ServiceInstance", child.serviceId(), s.name(), s.normal(), id, child.name(), null, null);
      }
      case ENDPOINT -> {
        EntityIds.ChildIdParts child = EntityIds.parseChildId(id);
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(child.serviceId());
        yield new MqeOwner("Endpoint", child.serviceId(), s.name(), s.normal(), null, null, id, child.name());
      }
      case PROCESS, SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS_RELATION ->
          throw new MqeException("top_n is not supported for " + scope + " metrics");
    };
  }

  /** The service a ranked entity belongs to, read from its id (a process id is a hash: it says none). */
  private static String serviceIdOf(MetricDefinition def, String id) {
    return switch (def.scope()) {
      case SERVICE -> id;
      case SERVICE_INSTANCE, ENDPOINT -> EntityIds.parseChildId(id).serviceId();
      case PROCESS, SERVICE_RELATION, SERVICE_INSTANCE_RELATION, PROCESS_RELATION ->
          throw new MqeException("top_n is not supported for " + def.scope() + " metric '" + def.name() + "'");
    };
  }

  /** The metric's definition; an error naming it when Sextant has no such metric. */
  public MetricDefinition definition(String metric) {
    return catalog.find(metric).orElseThrow(() -> new MqeException("Metric: [" + metric + "] does not exist."));
  }

  /** The SkyWalking id of the entity a query (MQE or v2) names, for the metric's scope. */
  public static String entityId(MetricDefinition def, MqeEntity e) {
    String service = require(e.serviceName(), "serviceName", def);
    String serviceId = EntityIds.serviceId(service, e.normal() == null || e.normal());
    return switch (def.scope()) {
      case SERVICE -> serviceId;
      case SERVICE_INSTANCE ->
          EntityIds.instanceId(serviceId, require(e.serviceInstanceName(), "serviceInstanceName", def));
      case ENDPOINT -> EntityIds.endpointId(serviceId, require(e.endpointName(), "endpointName", def));
      case SERVICE_RELATION -> EntityIds.relationId(serviceId, destServiceId(e, def));
      case SERVICE_INSTANCE_RELATION -> EntityIds.relationId(
          EntityIds.instanceId(serviceId, require(e.serviceInstanceName(), "serviceInstanceName", def)),
          EntityIds.instanceId(destServiceId(e, def),
              require(e.destServiceInstanceName(), "destServiceInstanceName", def)));
      case PROCESS -> processId(serviceId, e.serviceInstanceName(), e.processName(), "", def);
      case PROCESS_RELATION -> ProcessIds.relationId(
          processId(serviceId, e.serviceInstanceName(), e.processName(), "", def),
          processId(destServiceId(e, def), e.destServiceInstanceName(), e.destProcessName(), "dest", def));
    };
  }

  /** SkyWalking's process id: of the process named so under the instance (names as the Entity input has them). */
  private static String processId(String serviceId, String instance, String process, String side,
      MetricDefinition def) {
    String instanceField = side.isEmpty() ? "serviceInstanceName" : side + "ServiceInstanceName";
    String processField = side.isEmpty() ? "processName" : side + "ProcessName";
    return ProcessIds.processId(EntityIds.instanceId(serviceId, require(instance, instanceField, def)),
        require(process, processField, def));
  }

  private static String destServiceId(MqeEntity e, MetricDefinition def) {
    return EntityIds.serviceId(require(e.destServiceName(), "destServiceName", def),
        e.destNormal() == null || e.destNormal());
  }

  private static String require(String value, String field, MetricDefinition def) {
    if (value == null || value.isEmpty()) {
      throw new MqeException("metric '" + def.name() + "' is a " + def.scope().name().toLowerCase(Locale.ROOT)
          + " metric: the entity needs " + field);
    }
    return value;
  }

  /** Names of metrics matching a regex, with their scope and type, for {@code listMetrics}. */
  public List<MetricDefinition> listMetrics(String regex) {
    java.util.regex.Pattern p = regex == null || regex.isEmpty() ? null : java.util.regex.Pattern.compile(regex);
    return catalog.all().stream().filter(d -> p == null || p.matcher(d.name()).find()).toList();
  }
}
