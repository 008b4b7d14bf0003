package io.sextant.server.warmup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A warm-up's rounds and when it stops: its budget spent, or no round {@value #IMPROVEMENT_PERCENT}%
 * faster than the best for {@value #PLATEAU_MILLIS} ms (the code is compiled, the caches are full).
 * The rounds alone decide: readiness and the warm-up never wait on the JIT compiler. Times are
 * {@link System#nanoTime} values.
 */
final class WarmUpProgress {
  /** A round at least this much faster than the best so far is progress. */
  static final int IMPROVEMENT_PERCENT = 10;
  static final long PLATEAU_MILLIS = 3_000;

  private final long end;
  private final long budgetSeconds;
  /** The fastest round that was progress; 0 before the first round. */
  private long best;
  private long bestAt;
  private int rounds;
  private long firstNanos;
  private long lastNanos;

  WarmUpProgress(long startNanos, Duration budget) {
    this.bestAt = startNanos;
    this.end = startNanos + budget.toNanos();
    this.budgetSeconds = budget.toSeconds();
  }

  /** Why the warm-up stops before a round starting at {@code now}; null to go on. */
  String stopBefore(long now) {
    if (now - end >= 0) {
      return "its " + budgetSeconds + " s were spent";
    }
    return stalled(now) ? "its rounds stopped getting faster" : null;
  }

  /** A round took {@code nanos} and ended at {@code now}: progress if the first or clearly faster. */
  void round(long nanos, long now) {
    rounds++;
    lastNanos = nanos;
    if (rounds == 1) {
      firstNanos = nanos;
    }
    if (best == 0 || nanos * 100 < best * (100 - IMPROVEMENT_PERCENT)) {
      best = nanos;
      bestAt = now;
    }
  }

  /**
   * No progress for {@value #PLATEAU_MILLIS} ms; never before the first round (on a loaded machine,
   * setting up the first round took longer than that).
   */
  boolean stalled(long now) {
    return rounds > 0 && now - bestAt >= TimeUnit.MILLISECONDS.toNanos(PLATEAU_MILLIS);
  }

  int rounds() {
    return rounds;
  }

  long firstMillis() {
    return TimeUnit.NANOSECONDS.toMillis(firstNanos);
  }

  long lastMillis() {
    return TimeUnit.NANOSECONDS.toMillis(lastNanos);
  }
}
