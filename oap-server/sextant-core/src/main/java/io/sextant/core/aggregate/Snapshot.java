package io.sextant.core.aggregate;

import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricGroup;

/**
 * A copy of an accumulator taken by the flusher. {@code closed} means no record will ever be added
 * to this accumulator again. {@code detectPoints} and {@code protocols} are bit sets of ordinals;
 * {@code tlsDetectPoints} and {@code mtlsDetectPoints} the detect points (ordinals) whose reports
 * said TLS or mTLS, because SkyWalking adds the TLS component to each side by that side's report.
 */
public record Snapshot(
    MetricGroup group,
    EntityRef entity,
    long minuteBucket,
    long sequence,
    EncodedState[] states,
    int detectPoints,
    int protocols,
    int tlsDetectPoints,
    int mtlsDetectPoints,
    boolean closed) {}
