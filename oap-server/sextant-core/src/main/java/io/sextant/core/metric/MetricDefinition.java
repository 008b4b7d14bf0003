package io.sextant.core.metric;

/** One row of the metric table: {@code name = from(source, scope).filter(side).function()}. */
public record MetricDefinition(
    String name, Source source, Scope scope, Side side, AggregateFunction function) {}
