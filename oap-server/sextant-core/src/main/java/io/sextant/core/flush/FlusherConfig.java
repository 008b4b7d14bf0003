package io.sextant.core.flush;

/**
 * How often the flusher writes, how long a minute stays open for late records before it is closed
 * into the hour and day roll-ups, and how many partials may wait for storage before the oldest are
 * dropped (counted).
 */
public record FlusherConfig(long intervalMillis, int graceMinutes, int maxPendingPartials) {}
