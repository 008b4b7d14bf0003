package io.sextant.core.flush;

import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricGroup;
import java.util.Map;

/**
 * One hour or day partial being built, as a value: what a checkpoint saves and recovery restores
 * ({@link CutLog.Checkpoint}). {@code closed} is the merge of its closed minutes (null before the
 * first), {@code open} the latest state of each open minute by sequence.
 */
public record RollupEntry(MetricGroup group, EntityRef entity, long bucket, long sequence, EncodedState[] closed,
    Map<Long, EncodedState[]> open, boolean dirty) {}
