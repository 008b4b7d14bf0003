package io.sextant.receiver.ebpf.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The collector-local bound of the process service: live processes per service. */
class ServiceProcessLimitTest {
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
