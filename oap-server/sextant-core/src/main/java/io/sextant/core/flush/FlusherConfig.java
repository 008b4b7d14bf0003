package io.sextant.core.flush;

/**
 * How often the flusher collects open minutes and writes ({@code intervalMillis}), how often it
 * collects minutes that closed, late records included ({@code closedIntervalMillis}), how often it
 * rewrites the hour and day roll-ups, how long a minute
 * stays open for late records, and how much memory partial rows waiting for storage may take
 * before the oldest are dropped (counted).
 */
public record FlusherConfig(long intervalMillis, long closedIntervalMillis, long rollupIntervalMillis, int graceMinutes,
    long maxPendingBytes) {}
