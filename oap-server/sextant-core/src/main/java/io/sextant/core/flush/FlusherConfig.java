package io.sextant.core.flush;

/**
 * How often the flusher writes minutes and rewrites the hour and day roll-ups, how long a minute
 * stays open for late records, and how many partials may wait for storage before the oldest are
 * dropped (counted).
 */
public record FlusherConfig(long intervalMillis, long rollupIntervalMillis, int graceMinutes, int maxPendingPartials) {}
