package io.sextant.testkit.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PollTest {
  @Test
  void untilReturnsTheFirstValueThatIsDone() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    assertThat(Poll.until("three reads", Duration.ofSeconds(5), reads::incrementAndGet, n -> n >= 3)).isEqualTo(3);
  }

  @Test
  void untilFailsNamingTheLastValue() {
    assertThatThrownBy(() -> Poll.until("seven", Duration.ofMillis(120), () -> 6, n -> n == 7))
        .isInstanceOf(AssertionError.class).hasMessageContaining("not seven within 120 ms; last seen: 6");
  }

  @Test
  void staysChecksThroughoutTheDuration() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    long start = System.nanoTime();
    Poll.stays("quiet", Duration.ofMillis(200), () -> checks.incrementAndGet() > 0);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(checks.get()).isGreaterThan(2);
  }

  @Test
  void staysFailsAtTheFirstMomentItDoesNotHold() {
    AtomicInteger checks = new AtomicInteger();
    long start = System.nanoTime();
    assertThatThrownBy(() -> Poll.stays("quiet", Duration.ofSeconds(10), () -> checks.incrementAndGet() < 3))
        .isInstanceOf(AssertionError.class).hasMessageContaining("not quiet throughout 10000 ms");
    assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(5).toNanos());
  }
}
