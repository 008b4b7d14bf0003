package io.sextant.core.aggregate;

/**
 * Bounds of the aggregator. {@code maxAccumulators} caps open (entity, minute) accumulators;
 * records older than {@code maxLateMinutes} or further ahead than {@code maxFutureMinutes} are
 * refused.
 */
public record AggregatorLimits(int maxAccumulators, int maxLateMinutes, int maxFutureMinutes) {}
