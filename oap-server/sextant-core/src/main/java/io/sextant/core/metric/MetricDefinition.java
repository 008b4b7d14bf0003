package io.sextant.core.metric;

import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.Scope;

/**
 * One row of the metric table: {@code name = from(source, scope).filter(side).function()}. A
 * {@link Source#SAMPLE} row is fed only by samples that carry its name. {@code operation}, for
 * {@link Source#KERNEL} rows, is the only {@link KernelOperation} the row counts, or null for any:
 * the group then hands a record only to its operation's rows instead of testing every row.
 */
public record MetricDefinition(String name, Source source, Scope scope, Side side, AggregateFunction function,
    KernelOperation operation) {

  public MetricDefinition(String name, Source source, Scope scope, Side side, AggregateFunction function) {
    this(name, source, scope, side, function, null);
  }
}
