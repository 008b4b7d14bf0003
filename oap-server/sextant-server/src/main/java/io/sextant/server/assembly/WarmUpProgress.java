package io.sextant.server.assembly;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A warm-up's rounds and when it stops: its budget spent, or no round {@value #IMPROVEMENT_PERCENT}%
 * faster than the best for {@value #PLATEAU_MILLIS} ms (the code is compiled, the caches are full)
 * and, when it watches the JIT compiler, the compiler no more than {@value #QUIET_PERCENT}% busy in
 * each second of that time. Rounds stop getting faster long before the compiler is done: each of
 * the many methods still queued makes a round only a little faster, and on a busy machine the
 * queue took the whole first minute after ready, compiling what the warm-up had run (three
 * quarters of that minute's compiler time was the query path). Times are {@link System#nanoTime}
 * values.
 */
final class WarmUpProgress {
  /** A round at least this much faster than the best so far is progress. */
  static final int IMPROVEMENT_PERCENT = 10;
  static final long PLATEAU_MILLIS = 3_000;
  /** Compiler time, summed over its threads, per wall time at most this is a quiet compiler. */
  static final int QUIET_PERCENT = 10;
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final LongSupplier NOT_WATCHED = () -> -1;

  private final long end;
  private final long budgetSeconds;
  private final LongSupplier compilerMillis;
  /** The fastest round that was progress; 0 before the first round. */
  private long best;
  private long bestAt;
  private int rounds;
  private long firstNanos;
  private long lastNanos;
  /** The last second the compiler was busy in ends here. */
  private long compilerBusyAt;
  private long sampledAt;
  private long sampledMillis;
  private int lastBusyPercent = -1;

  /** A warm-up that stops on its rounds alone. */
  WarmUpProgress(long startNanos, Duration budget) {
    this(startNanos, budget, NOT_WATCHED);
  }

  /**
   * A warm-up that also waits for a quiet compiler; {@code compilerMillis} is its time so far
   * (negative: not known, and not waited for).
   */
  WarmUpProgress(long startNanos, Duration budget, LongSupplier compilerMillis) {
    this.bestAt = startNanos;
    this.compilerBusyAt = startNanos;
    this.sampledAt = startNanos;
    this.end = startNanos + budget.toNanos();
    this.budgetSeconds = budget.toSeconds();
    this.compilerMillis = compilerMillis;
    this.sampledMillis = compilerMillis.getAsLong();
  }

  /** This JVM's JIT compiler time so far, or -1 when it does not measure it. */
  static LongSupplier jvmCompiler() {
    CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
    if (bean == null || !bean.isCompilationTimeMonitoringSupported()) {
      return NOT_WATCHED;
    }
    return bean::getTotalCompilationTime;
  }

  /** Why the warm-up stops before a round starting at {@code now}; null to go on. */
  String stopBefore(long now) {
    if (now - end >= 0) {
      return "its " + budgetSeconds + " s were spent";
    }
    if (!stalled(now)) {
      return null;
    }
    return watchesCompiler() ? "its rounds stopped getting faster and the compiler was quiet"
        : "its rounds stopped getting faster";
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
    sampleCompiler(now);
  }

  /** Once a second or more has passed since the last sample: was the compiler busy in it? */
  private void sampleCompiler(long now) {
    if (!watchesCompiler() || now - sampledAt < SECOND) {
      return;
    }
    long millis = compilerMillis.getAsLong();
    lastBusyPercent = (int) (TimeUnit.MILLISECONDS.toNanos(millis - sampledMillis) * 100 / (now - sampledAt));
    if (lastBusyPercent > QUIET_PERCENT) {
      compilerBusyAt = now;
    }
    sampledAt = now;
    sampledMillis = millis;
  }

  private boolean watchesCompiler() {
    return sampledMillis >= 0;
  }

  /** No progress, and no second of a busy compiler, for {@value #PLATEAU_MILLIS} ms. */
  boolean stalled(long now) {
    long plateau = TimeUnit.MILLISECONDS.toNanos(PLATEAU_MILLIS);
    return now - bestAt >= plateau && (!watchesCompiler() || now - compilerBusyAt >= plateau);
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

  /** The compiler's busy share of the last sampled second or more, in percent; -1 if not watched or sampled. */
  int compilerBusyPercent() {
    return lastBusyPercent;
  }
}
