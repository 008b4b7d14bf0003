package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** In-memory SeriesSource test double that also records what it was asked. */
class FakeSource implements SeriesSource {
  private final Map<String, List<Series>> metrics = new HashMap<>();
  private final Map<String, List<RankedValue>> rankings = new HashMap<>();

  // Last calls, for assertions.
  final List<String> reads = new ArrayList<>();
  Map<String, String> lastSelector;
  MqeEntity lastEntity;
  List<Long> lastBuckets;
  Step lastStep;
  String topNMetric;
  int topNCount;
  Boolean topNAscending;
  Map<String, String> topNAttributes;

  /** An unlabeled metric. */
  FakeSource metric(String name, Double... values) {
    metrics.put(name, List.of(new Series(List.of(), values)));
    return this;
  }

  /** One series of a labelled metric, e.g. labelled("service_percentile", "p", "50", 1.0, 2.0). */
  FakeSource labelled(String name, String key, String value, Double... values) {
    metrics.computeIfAbsent(name, k -> new ArrayList<>())
        .add(new Series(List.of(new KeyValue(key, value)), values));
    return this;
  }

  /** Entities of a metric for top_n, in any order. */
  FakeSource ranking(String metric, RankedValue... values) {
    rankings.put(metric, List.of(values));
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
  public List<RankedValue> topN(String metric, int n, boolean ascending, Map<String, String> attributes,
      MqeEntity entity, List<Long> buckets, Step step) {
    topNMetric = metric;
    topNCount = n;
    topNAscending = ascending;
    topNAttributes = new LinkedHashMap<>(attributes);
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
