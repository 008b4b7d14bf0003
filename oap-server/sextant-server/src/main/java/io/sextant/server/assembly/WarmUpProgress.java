package io.sextant.server.assembly;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A warm-up's rounds and when it stops: its budget spent, or no round {@value #IMPROVEMENT_PERCENT}%
 * faster than the best for {@value #PLATEAU_MILLIS} ms (the code is compiled, the caches are full)
 * and, when it watches the JIT compiler, the compiler quiet in each second of that time: no more
 * than {@value #QUIET_PERCENT}% busy, and no optimizing compilation running or queued when the
 * second was sampled. Rounds stop getting faster long before the compiler is done: each of
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

  private final long end;
  private final long budgetSeconds;
  private final JitCompiler compiler;
  private final boolean watchesCompiler;
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
  private int lastOptimizing = -1;

  /**
   * A warm-up that also waits for a quiet compiler; what it does not measure is not waited for
   * ({@link JitCompiler#NOT_WATCHED}: on its rounds alone).
   */
  WarmUpProgress(long startNanos, Duration budget, JitCompiler compiler) {
    this.bestAt = startNanos;
    this.compilerBusyAt = startNanos;
    this.sampledAt = startNanos;
    this.end = startNanos + budget.toNanos();
    this.budgetSeconds = budget.toSeconds();
    this.compiler = compiler;
    this.sampledMillis = compiler.millis();
    this.watchesCompiler = sampledMillis >= 0 || compiler.optimizing() >= 0;
  }

  /** Why the warm-up stops before a round starting at {@code now}; null to go on. */
  String stopBefore(long now) {
    if (now - end >= 0) {
      return "its " + budgetSeconds + " s were spent";
    }
    if (!stalled(now)) {
      return null;
    }
    return watchesCompiler ? "its rounds stopped getting faster and the compiler was quiet"
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
    if (!watchesCompiler || now - sampledAt < SECOND) {
      return;
    }
    long millis = compiler.millis();
    lastBusyPercent = millis < 0 ? -1
        : (int) (TimeUnit.MILLISECONDS.toNanos(millis - sampledMillis) * 100 / (now - sampledAt));
    lastOptimizing = compiler.optimizing();
    if (lastBusyPercent > QUIET_PERCENT || lastOptimizing > 0) {
      compilerBusyAt = now;
    }
    sampledAt = now;
    sampledMillis = millis;
  }

  /**
   * No progress, and no second of a busy compiler, for {@value #PLATEAU_MILLIS} ms; never before the
   * first round (on a loaded machine, setting up the first round took longer than that).
   */
  boolean stalled(long now) {
    long plateau = TimeUnit.MILLISECONDS.toNanos(PLATEAU_MILLIS);
    return rounds > 0 && now - bestAt >= plateau && (!watchesCompiler || now - compilerBusyAt >= plateau);
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

  /** What the compiler was doing at the last sample, for the warm-up's log line; empty if not sampled. */
  String compilerSummary() {
    if (lastBusyPercent < 0 && lastOptimizing < 0) {
      return "";
    }
    return "; at the last sample the JIT compiler was " + (lastBusyPercent < 0 ? "" : lastBusyPercent + "% busy, ")
        + (lastOptimizing < 0 ? "its queue not known" : lastOptimizing + " optimizing compilations running or queued");
  }
}
