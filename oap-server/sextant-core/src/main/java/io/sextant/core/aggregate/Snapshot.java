package io.sextant.core.aggregate;

import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricGroup;

/**
 * A copy of an accumulator taken by the flusher. {@code closed} means no record will ever be added
 * to this accumulator again. {@code detectPoints} and {@code protocols} are bit sets of ordinals.
 */
public record Snapshot(
    MetricGroup group,
    EntityRef entity,
    long minuteBucket,
    long sequence,
    EncodedState[] states,
    int detectPoints,
    int protocols,
    boolean closed) {}
