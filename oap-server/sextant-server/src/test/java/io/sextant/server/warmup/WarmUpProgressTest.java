package io.sextant.server.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WarmUpProgressTest {
  @Test
  void stalledOnceNoRoundIsTenPercentFasterThanTheBestForThreeSeconds() {
    long s = 1_000_000_000L;
    long ms = 1_000_000L;
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(60));
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
  void aFirstRoundSlowToStartIsWaitedFor() {
    long s = 1_000_000_000L;
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(10));
    assertThat(progress.stopBefore(4 * s)).as("no round yet, 4 s after the start").isNull();
    progress.round(s / 10, 4 * s);
    assertThat(progress.stopBefore(6 * s)).isNull();
    assertThat(progress.stopBefore(7 * s)).isEqualTo("its rounds stopped getting faster");
  }

  @Test
  void stopsWhenItsBudgetIsSpent() {
    WarmUpProgress progress = new WarmUpProgress(0, Duration.ofSeconds(10));
    progress.round(1_000_000_000L, 9_999_000_000L); // progress: not stalled
    assertThat(progress.stopBefore(9_999_000_000L)).isNull();
    assertThat(progress.stopBefore(10_000_000_000L)).isEqualTo("its 10 s were spent");
  }
}
