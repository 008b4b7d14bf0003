package io.sextant.core.query.mqe;

/**
 * A parsed MQE expression (AST node). Obtain one with {@link Mqe#parse(String)} and evaluate it, as often as needed,
 * with {@link Mqe#evaluate(Expression, SeriesSource, MqeEntity, java.util.List, io.sextant.api.time.Step)}.
 * Nodes are immutable; {@code toString()} renders a fully parenthesised form, handy for logs and tests.
 */
public sealed interface Expression permits Nodes.NumberLiteral, Nodes.MetricRef, Nodes.Negate, Nodes.Binary,
    Nodes.Aggregate, Nodes.Relabel, Nodes.TopN, Nodes.Mathematical, Nodes.Trend, Nodes.Logical,
    Nodes.AggregateLabels, Nodes.SortValues, Nodes.SortLabelValues, Nodes.TopNOf, Nodes.Baseline {
}
