package io.sextant.server.assembly;

import java.util.concurrent.TimeUnit;

/**
 * When a warm-up has stopped getting faster: no round {@value #IMPROVEMENT_PERCENT}% faster than
 * the best for {@value #PLATEAU_MILLIS} ms (the code is compiled, the caches are full). Times are
 * {@link System#nanoTime} values.
 */
final class WarmUpProgress {
  /** A round at least this much faster than the best so far is progress. */
  static final int IMPROVEMENT_PERCENT = 10;
  static final long PLATEAU_MILLIS = 3_000;

  /** The fastest round that was progress; 0 before the first round. */
  private long best;
  private long bestAt;

  WarmUpProgress(long startNanos) {
    this.bestAt = startNanos;
  }

  /** A round took {@code nanos} and ended at {@code now}: progress if the first or clearly faster. */
  void round(long nanos, long now) {
    if (best == 0 || nanos * 100 < best * (100 - IMPROVEMENT_PERCENT)) {
      best = nanos;
      bestAt = now;
    }
  }

  /** No progress for {@value #PLATEAU_MILLIS} ms. */
  boolean stalled(long now) {
    return now - bestAt >= TimeUnit.MILLISECONDS.toNanos(PLATEAU_MILLIS);
  }
}
