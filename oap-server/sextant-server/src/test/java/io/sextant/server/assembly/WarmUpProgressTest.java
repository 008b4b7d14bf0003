package io.sextant.server.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarmUpProgressTest {
  @Test
  void stalledOnceNoRoundIsTenPercentFasterThanTheBestForThreeSeconds() {
    long s = 1_000_000_000L;
    long ms = 1_000_000L;
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60), JitCompiler.NOT_WATCHED);
    progress.round(2_900 * ms, 2_900 * ms); // a slow first round is the best so far
    assertThat(progress.stalled(4 * s)).isFalse();
    progress.round(300 * ms, 5 * s);
    progress.round(100 * ms, 7 * s);
    assertThat(progress.stalled(9 * s)).as("faster 2 s ago").isFalse();
    progress.round(95 * ms, 8 * s); // 5% faster: no progress
    progress.round(92 * ms, 9 * s);
    assertThat(progress.stalled(9_999 * ms)).isFalse();
    assertThat(progress.stalled(10 * s)).as("3 s without a round 10% faster than 100 ms").isTrue();
    assertThat(progress.stopBefore(10 * s)).isEqualTo("its rounds stopped getting faster");
    assertThat(progress.rounds()).isEqualTo(5);
    assertThat(progress.firstMillis()).isEqualTo(2_900);
    assertThat(progress.lastMillis()).isEqualTo(92);
  }

  @Test
  void waitsUntilTheCompilerWasQuietForThreeSecondsOnceRoundsStopGettingFaster() {
    long s = 1_000_000_000L;
    AtomicLong compiled = new AtomicLong(5_000); // compiler time in ms so far
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60), timed(compiled));
    progress.round(s, s); // the compiler's first second: 800 ms
    compiled.addAndGet(800);
    progress.round(s / 10, 2 * s);
    assertThat(progress.compilerBusyPercent()).isEqualTo(80);
    for (int second = 3; second <= 6; second++) { // rounds no faster; the compiler 30% busy
      compiled.addAndGet(300);
      progress.round(s / 10, second * s);
    }
    assertThat(progress.stopBefore(6 * s)).as("no progress for 4 s, but the compiler still busy").isNull();
    for (int second = 7; second <= 9; second++) { // 10% busy: quiet
      compiled.addAndGet(100);
      progress.round(s / 10, second * s);
    }
    assertThat(progress.compilerBusyPercent()).isEqualTo(10);
    assertThat(progress.stopBefore(8_999_999_999L)).isNull();
    assertThat(progress.stopBefore(9 * s)).isEqualTo("its rounds stopped getting faster and the compiler was quiet");
  }

  @Test
  void aRoundLongerThanASecondIsOneSampleOfTheCompiler() {
    long s = 1_000_000_000L;
    AtomicLong compiled = new AtomicLong();
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60), timed(compiled));
    compiled.addAndGet(1_500); // two compiler threads busy for most of a 2-s round
    progress.round(2 * s, 2 * s);
    assertThat(progress.compilerBusyPercent()).isEqualTo(75);
    compiled.addAndGet(100);
    progress.round(s / 2, 2 * s + s / 2);
    assertThat(progress.compilerBusyPercent()).as("less than a second since the last sample").isEqualTo(75);
  }

  @Test
  void aCompilerThatIsNotMeasuredIsNotWaitedFor() {
    long s = 1_000_000_000L;
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60), JitCompiler.NOT_WATCHED);
    progress.round(s, s);
    assertThat(progress.stopBefore(4 * s)).isEqualTo("its rounds stopped getting faster");
    assertThat(progress.compilerBusyPercent()).isEqualTo(-1);
    assertThat(progress.compilerSummary()).isEmpty();
  }

  @Test
  void anOptimizingCompilationRunningOrQueuedAtASampleIsABusySecondHoweverLittleTimeEnded() {
    long s = 1_000_000_000L;
    AtomicInteger optimizing = new AtomicInteger(1); // one 3-s compilation: no time added until it ends
    JitCompiler compiler = TestCompilers.of(() -> 1_000, optimizing::get);
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60), compiler);
    for (int second = 1; second <= 4; second++) {
      progress.round(s / 10, second * s);
    }
    assertThat(progress.compilerBusyPercent()).isZero();
    assertThat(progress.stopBefore(4 * s)).as("rounds no faster for 3 s, but C2 at work").isNull();
    optimizing.set(0);
    for (int second = 5; second <= 7; second++) {
      progress.round(s / 10, second * s);
    }
    assertThat(progress.stopBefore(6_999_999_999L)).isNull();
    assertThat(progress.stopBefore(7 * s)).isEqualTo("its rounds stopped getting faster and the compiler was quiet");
    assertThat(progress.compilerSummary())
        .isEqualTo("; at the last sample the JIT compiler was 0% busy, 0 optimizing compilations running or queued");
  }

  @Test
  void readsTheOptimizingTasksOfTheCompilerQueueCommand() {
    String queue = """
        Current compiles:\s
        C2 CompilerThread0  1565       4       java.util.HashMap::putVal (300 bytes)
        C1 CompilerThread0  1566       3       java.util.HashMap::get (23 bytes)

        C1 compile queue:
        1568       3       java.lang.String::length (11 bytes)

        C2 compile queue:
        1567       4       java.util.AbstractCollection::<init> (5 bytes)
        1570    %  4       java.lang.StringLatin1::compareToCI @ 12 (108 bytes)

        """;
    assertThat(JitCompiler.optimizingTasks(queue)).isEqualTo(3);
    String idle = "Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n";
    assertThat(JitCompiler.optimizingTasks(idle)).isZero();
  }

  @Test
  void hotSpotMeasuresItsCompilerAndShowsItsQueue() {
    JitCompiler jvm = JitCompiler.jvm();
    assertThat(jvm.millis()).isPositive();
    assertThat(jvm.optimizing()).isNotNegative();
  }

  /** A compiler whose time is measured and whose queue is not known. */
  private static JitCompiler timed(AtomicLong millis) {
    return TestCompilers.of(millis::get, () -> -1);
  }

  @Test
  void aFirstRoundSlowToStartIsWaitedFor() {
    long s = 1_000_000_000L;
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(10), JitCompiler.NOT_WATCHED);
    assertThat(progress.stopBefore(4 * s)).as("no round yet, 4 s after the start").isNull();
    progress.round(s / 10, 4 * s);
    assertThat(progress.stopBefore(6 * s)).isNull();
    assertThat(progress.stopBefore(7 * s)).isEqualTo("its rounds stopped getting faster");
  }

  @Test
  void stopsWhenItsBudgetIsSpent() {
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(10), JitCompiler.NOT_WATCHED);
    progress.round(1_000_000_000L, 9_999_000_000L); // progress: not stalled
    assertThat(progress.stopBefore(9_999_000_000L)).isNull();
    assertThat(progress.stopBefore(10_000_000_000L)).isEqualTo("its 10 s were spent");
  }
}
