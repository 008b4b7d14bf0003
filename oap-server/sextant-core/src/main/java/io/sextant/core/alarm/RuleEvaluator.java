package io.sextant.core.alarm;

import io.sextant.api.event.Event;
import io.sextant.api.event.EventRecords;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ForwardingStorageComponent;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.query.MetadataQueries;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.Mqe;
import io.sextant.core.query.mqe.MqeResult;
import io.sextant.core.query.mqe.MqeValue;
import io.sextant.core.query.mqe.Series;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Evaluates one rule for every entity with data in its window: each metric the rule reads is read
 * once for all entities (one storage request per metric, every collector's partials), then the
 * expression runs per entity over those partials in memory.
 */
public final class RuleEvaluator {
  /** Events one event rule reads per evaluation, at most (Elasticsearch's default result window). */
  static final int MAX_EVENTS = 10_000;

  private final StorageComponent storage;
  private final MetricCatalog catalog;
  private final TimeBuckets buckets;
  private final int maxEntities;

  /** {@code maxEntities} bounds the entities one rule looks at per minute; past it the rest are skipped. */
  public RuleEvaluator(StorageComponent storage, MetricCatalog catalog, TimeBuckets buckets, int maxEntities) {
    this.storage = storage;
    this.catalog = catalog;
    this.buckets = buckets;
    this.maxEntities = maxEntities;
  }

  /** What one rule found over the window ending at {@code minute}; {@code skipped} entities past the bound. */
  public record Outcome(List<Verdict> verdicts, int skipped) {}

  /**
   * One entity's answer: {@code breached} when the expression gave 1; {@code snapshot} the values of
   * each metric in the window (SkyWalking's alarm snapshot).
   */
  public record Verdict(AlarmEntity entity, boolean breached, List<MetricValues> snapshot) {}

  /** One metric's values in the window, per label combination: points {@code (minute bucket, value)}. */
  public record MetricValues(String metric, List<KeyValue> labels, List<MqeValue> values) {}

  /** The minute buckets of the rule's window, oldest first, ending at {@code minute}. */
  public static List<Long> window(AlarmRule rule, long minute) {
    return window(rule.period(), minute);
  }

  static List<Long> window(int period, long minute) {
    return TimeBuckets.range(TimeBuckets.plus(minute, Step.MINUTE, -(period - 1)), minute, Step.MINUTE, period);
  }

  public Outcome evaluate(AlarmRule rule, long minute) {
    return evaluate(rule, minute, null);
  }

  /**
   * As above for the one entity of that name (every entity when null); a named entity's verdict
   * carries its window's values even when the rule is not broken (the status endpoint shows them).
   */
  public Outcome evaluate(AlarmRule rule, long minute, String entityName) {
    return read(rule, minute, minute).evaluate(minute, entityName);
  }

  /**
   * Reads the rule's metrics once for every window ending in {@code [firstMinute, lastMinute]}: one
   * storage request per metric, for every entity.
   */
  public Span read(AlarmRule rule, long firstMinute, long lastMinute) {
    long from = window(rule, firstMinute).get(0);
    if (rule.events() != null) {
      return new Span(rule, events(rule.events(), from, lastMinute));
    }
    Map<String, Map<String, List<MetricPartial>>> byMetric = new HashMap<>();
    TreeSet<String> entityIds = new TreeSet<>();
    for (String metric : rule.metrics()) {
      Map<String, List<MetricPartial>> byEntity = new HashMap<>();
      for (MetricPartial p : storage.metrics().read(metric, null, Step.MINUTE, from, lastMinute)) {
        byEntity.computeIfAbsent(p.entityId(), e -> new ArrayList<>()).add(p);
        entityIds.add(baseId(p.entityId()));
      }
      byMetric.put(metric, byEntity);
    }
    return new Span(rule, entityIds, new MetricQueries(new Prefetched(storage, byMetric), catalog,
        new MetadataQueries(storage)));
  }

  /** Matching events per service id and minute, from the event records of the minutes given. */
  private Map<String, Map<Long, Integer>> events(EventCondition condition, long fromMinute, long toMinute) {
    long start = buckets.startMillis(fromMinute, Step.MINUTE);
    long end = buckets.startMillis(TimeBuckets.plus(toMinute, Step.MINUTE, 1), Step.MINUTE) - 1;
    List<String> tags = new ArrayList<>();
    if (condition.type() != null) {
      tags.add(StoredRecord.tag(EventRecords.TYPE, condition.type()));
    }
    if (condition.layer() != null) {
      tags.add(StoredRecord.tag(EventRecords.LAYER, condition.layer()));
    }
    Map<String, Map<Long, Integer>> counts = new TreeMap<>();
    for (StoredRecord r : storage.records().read(new RecordQuery(EventRecords.KIND, null, start, end, tags,
        MAX_EVENTS))) {
      Event e = EventRecords.fromRecord(r);
      long at = e.startTime() > 0 ? e.startTime() : r.timeMillis();
      if (e.service().isEmpty() || at < start || at > end || !condition.matches(e)) {
        continue;
      }
      counts.computeIfAbsent(EntityIds.serviceId(e.service(), true), k -> new HashMap<>())
          .merge(buckets.minuteBucket(at), 1, Integer::sum);
    }
    return counts;
  }

  /** What was read for a rule, evaluated minute by minute in memory. */
  public final class Span {
    private final AlarmRule rule;
    private final TreeSet<String> entityIds;
    private final MetricQueries source;
    private final Map<String, Map<Long, Integer>> events;

    private Span(AlarmRule rule, TreeSet<String> entityIds, MetricQueries source) {
      this.rule = rule;
      this.entityIds = entityIds;
      this.source = source;
      this.events = null;
    }

    private Span(AlarmRule rule, Map<String, Map<Long, Integer>> events) {
      this.rule = rule;
      this.entityIds = new TreeSet<>(events.keySet());
      this.source = null;
      this.events = events;
    }

    /** The verdict of every entity read (or of the one named) over the window ending at {@code minute}. */
    public Outcome evaluate(long minute, String entityName) {
      List<Long> window = window(rule, minute);
      List<Verdict> verdicts = new ArrayList<>();
      int skipped = 0;
      for (String id : entityIds) {
        AlarmEntity entity;
        try {
          entity = AlarmEntity.of(rule.scope(), id);
        } catch (IllegalArgumentException e) {
          continue; // not an entity of this scope (e.g. a relation id from another family)
        }
        if (!rule.watches(entity.name()) || (entityName != null && !entityName.equals(entity.name()))) {
          continue;
        }
        if (verdicts.size() >= maxEntities) {
          skipped++;
          continue;
        }
        verdicts.add(events == null ? metricVerdict(entity, window, entityName != null)
            : eventVerdict(entity, window, entityName != null));
      }
      return new Outcome(verdicts, skipped);
    }

    /** Broken when every window's expression answers 1 over its own last minutes. */
    private Verdict metricVerdict(AlarmEntity entity, List<Long> window, boolean withValues) {
      long minute = window.get(window.size() - 1);
      boolean breached = true;
      for (AlarmRule.Window w : rule.windows()) {
        MqeResult r = Mqe.evaluate(w.parsed(), source, entity.mqe(), RuleEvaluator.window(w.period(), minute),
            Step.MINUTE);
        breached &= r.error() == null && r.results().stream().flatMap(s -> s.values().stream())
            .anyMatch(v -> v.value() != null && v.value() == 1.0);
      }
      return new Verdict(entity, breached, breached || withValues ? snapshot(rule, source, entity, window)
          : List.of());
    }

    /** An event rule's verdict; its snapshot is the count of matching events in each minute. */
    private Verdict eventVerdict(AlarmEntity entity, List<Long> window, boolean withValues) {
      Map<Long, Integer> perMinute = events.getOrDefault(entity.id(), Map.of());
      int total = 0;
      List<MqeValue> values = new ArrayList<>();
      for (long minute : window) {
        Integer n = perMinute.get(minute);
        total += n == null ? 0 : n;
        values.add(new MqeValue(Long.toString(minute), n == null ? 0.0 : n.doubleValue()));
      }
      boolean breached = total >= rule.events().threshold();
      return new Verdict(entity, breached, breached || withValues
          ? List.of(new MetricValues("events", List.of(), values)) : List.of());
    }
  }

  private static List<MetricValues> snapshot(AlarmRule rule, MetricQueries source, AlarmEntity entity,
      List<Long> window) {
    List<MetricValues> out = new ArrayList<>();
    for (String metric : rule.metrics()) {
      for (Series s : source.read(metric, Map.of(), entity.mqe(), window, Step.MINUTE)) {
        List<MqeValue> values = new ArrayList<>();
        for (int i = 0; i < window.size(); i++) {
          values.add(new MqeValue(Long.toString(window.get(i)), s.values()[i]));
        }
        out.add(new MetricValues(metric, s.labels(), values));
      }
    }
    return out;
  }

  /** The id of a metric's entity without the label a data-labelled metric adds. */
  private static String baseId(String entityId) {
    int bar = entityId.indexOf('|');
    return bar < 0 ? entityId : entityId.substring(0, bar);
  }

  /** Storage whose metrics are the partials read for the window, kept in memory. */
  private static final class Prefetched extends ForwardingStorageComponent {
    private final StorageComponent delegate;
    private final MetricsStore metrics;

    Prefetched(StorageComponent delegate, Map<String, Map<String, List<MetricPartial>>> byMetric) {
      this.delegate = delegate;
      this.metrics = new MetricsStore() {
        @Override
        public void write(List<PartialRow> rows) {
          throw new UnsupportedOperationException("an alarm window is read-only");
        }

        @Override
        public List<MetricPartial> read(String metric, Collection<String> ids, Step step, long start, long end) {
          Map<String, List<MetricPartial>> byEntity = byMetric.getOrDefault(metric, Map.of());
          List<MetricPartial> out = new ArrayList<>();
          Collection<String> wanted = ids == null ? byEntity.keySet() : ids;
          for (String id : wanted) {
            for (MetricPartial p : byEntity.getOrDefault(id, List.of())) {
              if (p.step() == step && p.bucket() >= start && p.bucket() <= end) {
                out.add(p);
              }
            }
          }
          return out;
        }
      };
    }

    @Override
    protected StorageComponent delegate() {
      return delegate;
    }

    @Override
    public MetricsStore metrics() {
      return metrics;
    }
  }
}
