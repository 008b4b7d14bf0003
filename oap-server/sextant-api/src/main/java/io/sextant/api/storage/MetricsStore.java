package io.sextant.api.storage;

import io.sextant.api.time.Step;
import java.util.Collection;
import java.util.List;

/** Partial aggregates, written by collectors and merged by queries. */
public interface MetricsStore {
  /** Upserts rows by {@link PartialRow#id()}. */
  void write(List<PartialRow> rows);

  /**
   * All partials of a metric with buckets in {@code [startBucket, endBucket]}; {@code entityIds}
   * null means every entity.
   */
  List<MetricPartial> read(
      String metric, Collection<String> entityIds, Step step, long startBucket, long endBucket);
}
