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

  Accumulator(EntityRef entity, long sequence, MetricState[] states) {
    this.entity = entity;
    this.sequence = sequence;
    this.states = states;
  }
}
