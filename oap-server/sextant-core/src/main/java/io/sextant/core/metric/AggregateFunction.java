package io.sextant.core.metric;

import io.sextant.api.model.Observation;
import io.sextant.api.time.Step;
import java.util.List;

/**
 * A mergeable metric function: partial states from any number of collectors and buckets combine
 * with {@link #merge} into exactly the state one collector would have built from all the records.
 */
public interface AggregateFunction {
  void add(MetricState state, Observation record);

  void merge(MetricState into, MetricState from);

  /**
   * The value as SkyWalking reports it, for the label at {@code labelIndex} (0 for unlabelled
   * functions); null when the state holds no data.
   */
  Long value(MetricState state, Step step, int labelIndex);

  /** Label key of a multi-valued function ({@code p} for percentiles), or null. */
  default String labelKey() {
    return null;
  }

  /** The label values, in order; a single empty entry for an unlabelled function. */
  default List<String> labelValues() {
    return List.of("");
  }

  /** The function's name in the metric table, as {@code listMetrics} shows it. */
  String name();
}
