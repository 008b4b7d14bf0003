package io.sextant.receiver.ebpf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The collector-local bounds of the process service: one write a minute, processes per service. */
class ProcessWriteBoundsTest {
  @Test
  void anEntityIsWrittenOnceAMinuteAndAgainAfterAFailedWrite() {
    WrittenThisMinute written = new WrittenThisMinute(1_000);
    assertThat(written.firstIn("process|a", 202611221000L)).isTrue();
    assertThat(written.firstIn("process|a", 202611221000L)).isFalse();
    assertThat(written.firstIn("process|a", 202611221000L)).isFalse();
    assertThat(written.firstIn("process|b", 202611221000L)).isTrue();
    assertThat(written.firstIn("process|a", 202611221001L)).isTrue();
    written.forget("process|a");
    assertThat(written.firstIn("process|a", 202611221001L)).isTrue();
  }

  @Test
  void aFullCacheForgetsEverythingInsteadOfGrowing() {
    WrittenThisMinute written = new WrittenThisMinute(2);
    written.firstIn("a", 1);
    written.firstIn("b", 1);
    assertThat(written.firstIn("c", 1)).isTrue();
    assertThat(written.firstIn("a", 1)).isTrue(); // forgotten: one extra write, never a lost one
  }

  @Test
  void aServiceKeepsAtMostItsLimitOfProcessesAliveInTheLastTenMinutes() {
    ServiceProcessLimit limit = new ServiceProcessLimit(2, 1_000);
    assertThat(limit.admit("s", "p1", 100)).isTrue();
    assertThat(limit.admit("s", "p2", 100)).isTrue();
    assertThat(limit.admit("s", "p3", 105)).isFalse();
    assertThat(limit.admit("other", "p3", 105)).isTrue();
    assertThat(limit.admit("s", "p1", 105)).isTrue(); // a known process always pings
    // p2 last pinged at 100: gone after ten minutes, so p3 takes its place.
    assertThat(limit.admit("s", "p3", 111)).isTrue();
    assertThat(limit.admit("s", "p2", 111)).isFalse();
  }
}
