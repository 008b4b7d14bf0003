package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.List;
import java.util.Map;

/** Where metric data comes from. Implemented by the query service. */
public interface SeriesSource {
  /** The shape of metric {@code metric}, or null if there is no such metric. */
  MetricKind kind(String metric);

  /**
   * Reads metric {@code metric} for {@code entity} over {@code buckets} (bucket longs like 202611221030, in step
   * {@code step}). {@code labelSelector} is the parsed {@code {k='v1,v2', ...}} selector (empty map if none); for a
   * labelled metric (e.g. percentiles with label p) the source returns one Series per selected label value (all label
   * values if no selector). Throws MqeException with a clear message if the metric is unknown.
   */
  List<Series> read(String metric, Map<String, String> labelSelector, MqeEntity entity, List<Long> buckets, Step step);

  /**
   * top_n support: ranks entities of {@code metric} by the average of their values over the buckets, keeping only
   * those that pass every attribute filter (e.g. attr0='MESH'), and only the entity's service's children when
   * entity.serviceName() is non-null (for instance/endpoint metrics). Returns at most {@code n}, sorted by
   * {@code ascending}.
   */
  List<RankedValue> topN(String metric, int n, boolean ascending, List<AttributeFilter> attributes, MqeEntity entity,
      List<Long> buckets, Step step);

  /**
   * top_n over a sampled record ({@link MetricKind#SAMPLED_RECORD}): the {@code n} records of {@code metric} owned
   * by {@code entity} in the buckets' time, ordered by value. A source that keeps no sampled records refuses.
   */
  default List<RecordValue> records(String metric, int n, boolean ascending, MqeEntity entity, List<Long> buckets,
      Step step) {
    throw new MqeException("Metric: [" + metric + "] is a sampled record (RECORD_LIST) that Sextant does not keep, "
        + "so it cannot answer it.");
  }
}
