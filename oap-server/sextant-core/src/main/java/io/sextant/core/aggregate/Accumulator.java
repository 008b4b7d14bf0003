package io.sextant.core.aggregate;

import io.sextant.core.metric.MetricState;

/**
 * The open state of one entity's metric group in one minute. Writers and the flusher synchronize
 * on it; once {@link #sealed} it has been handed to the flusher for the last time and writers must
 * start a new accumulator (with a new sequence) instead.
 */
final class Accumulator {
  final EntityRef entity;
  final long sequence;
  final MetricState[] states;
  int detectPoints;
  int protocols;
  int tlsDetectPoints;
  int mtlsDetectPoints;
  boolean dirty;
  boolean sealed;
  /** Created for an entity without standing ({@link Standing}): counts against the newcomers' share. */
  boolean newcomer;

  /** Metrics one unit of {@code core.maxAccumulators} stands for. */
  static final int METRICS_PER_UNIT = 40;

  Accumulator(EntityRef entity, long sequence, MetricState[] states) {
    this.entity = entity;
    this.sequence = sequence;
    this.states = states;
  }

  /**
   * How many units of the accumulator bound this one takes: one per {@value #METRICS_PER_UNIT}
   * metrics (a mesh group is one; the access log's relation groups, near a hundred metrics, three),
   * so the bound follows memory rather than the number of groups.
   */
  int units() {
    return units(states.length);
  }

  /** The units of an accumulator keeping {@code metrics} metrics. */
  static int units(int metrics) {
    return (metrics + METRICS_PER_UNIT - 1) / METRICS_PER_UNIT;
  }
}
