package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** In-memory SeriesSource test double that also records what it was asked. */
class FakeSource implements SeriesSource {
  private final Map<String, List<Series>> metrics = new HashMap<>();
  private final Map<String, List<RankedValue>> rankings = new HashMap<>();
  private final Map<String, Map<Long, Double>> byBucket = new HashMap<>();
  private final Map<String, MetricKind> kinds = new HashMap<>();

  // Last calls, for assertions.
  final List<String> reads = new ArrayList<>();
  Map<String, String> lastSelector;
  MqeEntity lastEntity;
  List<Long> lastBuckets;
  Step lastStep;
  String topNMetric;
  int topNCount;
  Boolean topNAscending;
  List<AttributeFilter> topNAttributes;

  /** An unlabeled metric. */
  FakeSource metric(String name, Double... values) {
    metrics.put(name, List.of(new Series(List.of(), values)));
    kinds.put(name, MetricKind.REGULAR);
    return this;
  }

  /** One series of a labelled metric, e.g. labelled("service_percentile", "p", "50", 1.0, 2.0). */
  FakeSource labelled(String name, String key, String value, Double... values) {
    return series(name, List.of(new KeyValue(key, value)), values);
  }

  /** One series of a labelled metric with any labels. */
  FakeSource series(String name, List<KeyValue> labels, Double... values) {
    metrics.computeIfAbsent(name, k -> new ArrayList<>()).add(new Series(labels, values));
    kinds.put(name, MetricKind.LABELED);
    return this;
  }

  /** A labelled metric that has no series at all (e.g. no data yet). */
  FakeSource labelledWithoutData(String name) {
    metrics.put(name, List.of());
    kinds.put(name, MetricKind.LABELED);
    return this;
  }

  /** An unlabeled metric with a value per bucket, whatever buckets are asked (for increase/rate). */
  FakeSource bucketed(String name, Map<Long, Double> values) {
    byBucket.put(name, new HashMap<>(values));
    kinds.put(name, MetricKind.REGULAR);
    return this;
  }

  FakeSource kind(String name, MetricKind kind) {
    kinds.put(name, kind);
    return this;
  }

  @Override
  public MetricKind kind(String metric) {
    return kinds.get(metric);
  }

  /** Entities of a metric for top_n, in any order. */
  FakeSource ranking(String metric, RankedValue... values) {
    rankings.put(metric, List.of(values));
    kinds.putIfAbsent(metric, MetricKind.REGULAR);
    return this;
  }

  @Override
  public List<Series> read(String metric, Map<String, String> labelSelector, MqeEntity entity, List<Long> buckets,
      Step step) {
    reads.add(metric);
    lastSelector = labelSelector;
    lastEntity = entity;
    lastBuckets = buckets;
    lastStep = step;
    Map<Long, Double> bucketValues = byBucket.get(metric);
    if (bucketValues != null) {
      return List.of(new Series(List.of(), buckets.stream().map(bucketValues::get).toArray(Double[]::new)));
    }
    List<Series> all = metrics.get(metric);
    if (all == null) {
      throw new MqeException("unknown metric '" + metric + "'");
    }
    // Keep the series whose labels match every selector entry (value in the comma-separated list).
    List<Series> out = new ArrayList<>();
    for (Series s : all) {
      boolean match = labelSelector.entrySet().stream().allMatch(e -> s.labels().stream()
          .anyMatch(kv -> kv.key().equals(e.getKey()) && Arrays.asList(e.getValue().split(",")).contains(kv.value())));
      if (match) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  public List<RankedValue> topN(String metric, int n, boolean ascending, List<AttributeFilter> attributes,
      MqeEntity entity, List<Long> buckets, Step step) {
    topNMetric = metric;
    topNCount = n;
    topNAscending = ascending;
    topNAttributes = List.copyOf(attributes);
    lastEntity = entity;
    lastBuckets = buckets;
    lastStep = step;
    List<RankedValue> all = rankings.get(metric);
    if (all == null) {
      throw new MqeException("unknown metric '" + metric + "'");
    }
    Comparator<RankedValue> byValue = Comparator.comparingDouble(RankedValue::value);
    return all.stream().sorted(ascending ? byValue : byValue.reversed()).limit(n).toList();
  }
}
