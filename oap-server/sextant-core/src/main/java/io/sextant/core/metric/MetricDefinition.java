package io.sextant.core.metric;

import io.sextant.api.model.Scope;
import io.sextant.api.model.MeshRecord;
import java.util.function.Predicate;

/**
 * One row of the metric table: {@code name = from(source, scope).filter(side, filter).function()}.
 * {@code filter} is null when the side is the only filter.
 */
public record MetricDefinition(
    String name, Source source, Scope scope, Side side, Predicate<MeshRecord> filter, AggregateFunction function) {

  public MetricDefinition(String name, Source source, Scope scope, Side side, AggregateFunction function) {
    this(name, source, scope, side, null, function);
  }
}
