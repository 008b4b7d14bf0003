package io.sextant.core.flush;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.time.Step;
import io.sextant.core.metric.MetricGroup;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The read port to what this collector holds of its own metrics and has not stored yet: the only
 * way the query side reaches into the write path ({@link FreshMetrics} merges it with storage).
 */
public interface LiveMetrics {
  /** The metric groups this collector aggregates. */
  List<MetricGroup> groups();

  /**
   * Hands {@code out} the partials of metric {@code index} of {@code group} that are not stored yet,
   * of {@code entityIds} (null: all), {@code step} and buckets in {@code [start, end]}, newest first
   * in the order data flows: live accumulators (minute step only), rows waiting for storage, the
   * batch being written. Safe to call from any thread while the collector runs.
   */
  void unstored(MetricGroup group, int index, Collection<String> entityIds, Step step, long start, long end,
      Consumer<MetricPartial> out);
}
