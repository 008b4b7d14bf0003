package io.sextant.core.profiling;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.CheckItem;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyDocumentsTest {
  private static final CheckItem CPU = new CheckItem("PROCESS_CPU", "80", 10, 3, null, null);
  private static final CheckItem ERRORS = new CheckItem("HTTP_ERROR_RATE", "10", 10, 2, List.of(), "/api/.*");
  private static final CheckItem LATENCY = new CheckItem("HTTP_AVG_RESPONSE_TIME", "200", 20, 5,
      List.of("/cart", "/pay"), null);

  @Test
  void aPolicyComesBackAsStoredWithAbsentAndEmptyUrisKeptApart() {
    ContinuousProfilingPolicy p = PolicyDocuments.canonical("c2hvcA==.1",
        List.of(new Target("ON_CPU", List.of(CPU)), new Target("NETWORK", List.of(ERRORS, LATENCY))));

    assertThat(PolicyDocuments.decode(PolicyDocuments.encode(p))).isEqualTo(p);
    assertThat(p.uuid()).matches("[0-9a-f]{128}");
  }

  @Test
  void theSamePolicyInAnotherOrderHasTheSameUuidAndADifferentOneAnother() {
    ContinuousProfilingPolicy one = PolicyDocuments.canonical("s",
        List.of(new Target("NETWORK", List.of(LATENCY, ERRORS)), new Target("ON_CPU", List.of(CPU))));
    ContinuousProfilingPolicy two = PolicyDocuments.canonical("s",
        List.of(new Target("ON_CPU", List.of(CPU)), new Target("NETWORK", List.of(ERRORS, LATENCY))));
    ContinuousProfilingPolicy other = PolicyDocuments.canonical("s",
        List.of(new Target("ON_CPU", List.of(new CheckItem("PROCESS_CPU", "81", 10, 3, null, null)))));

    assertThat(one).isEqualTo(two);
    assertThat(one.targets().get(0).targetType()).isEqualTo("ON_CPU");
    assertThat(one.targets().get(1).checkItems()).containsExactly(ERRORS, LATENCY);
    assertThat(other.uuid()).isNotEqualTo(one.uuid());
  }
}
