package io.sextant.core.metric;

import io.sextant.api.model.Scope;

/**
 * One row of the metric table: {@code name = from(source, scope).filter(side).function()}. A
 * {@link Source#SAMPLE} row is fed only by samples that carry its name.
 */
public record MetricDefinition(String name, Source source, Scope scope, Side side, AggregateFunction function) {}
