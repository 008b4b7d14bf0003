package io.sextant.receiver.ebpf.continuous;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PolicyCacheTest {
  private final AtomicLong nanos = new AtomicLong();
  private final Map<String, ContinuousProfilingPolicy> stored = new HashMap<>();
  private final List<List<String>> reads = new ArrayList<>();

  private Map<String, ContinuousProfilingPolicy> load(List<String> ids) {
    reads.add(List.copyOf(ids));
    Map<String, ContinuousProfilingPolicy> out = new HashMap<>();
    ids.forEach(id -> {
      if (stored.containsKey(id)) {
        out.put(id, stored.get(id));
      }
    });
    return out;
  }

  private static ContinuousProfilingPolicy policy(String serviceId, String threshold) {
    return new ContinuousProfilingPolicy(serviceId, "uuid-" + threshold,
        List.of(new ContinuousProfilingPolicy.Target("ON_CPU",
        List.of(new ContinuousProfilingPolicy.CheckItem("PROCESS_CPU", threshold, 10, 3, null, null)))));
  }

  @Test
  void aPolicyAndTheAbsenceOfOneAreReusedUntilTheCacheTimeThenReadAgain() {
    PolicyCache cache = new PolicyCache(60, 100, nanos::get);
    stored.put("a", policy("a", "80"));

    assertThat(cache.policies(List.of("a", "b"), this::load))
        .isEqualTo(Map.of("a", Optional.of(policy("a", "80")), "b", Optional.empty()));
    stored.put("a", policy("a", "90"));
    stored.put("b", policy("b", "50"));
    nanos.set(59_999_999_999L);
    assertThat(cache.policies(List.of("a", "b"), this::load))
        .isEqualTo(Map.of("a", Optional.of(policy("a", "80")), "b", Optional.empty()));
    assertThat(reads).containsExactly(List.of("a", "b"));

    nanos.set(60_000_000_000L);
    assertThat(cache.policies(List.of("a", "b"), this::load))
        .isEqualTo(Map.of("a", Optional.of(policy("a", "90")), "b", Optional.of(policy("b", "50"))));
    assertThat(reads).hasSize(2);
  }

  @Test
  void pastItsBoundTheOldestReadsAreForgotten() {
    PolicyCache cache = new PolicyCache(60, 2, nanos::get);
    cache.policies(List.of("a"), this::load);
    cache.policies(List.of("b"), this::load);
    cache.policies(List.of("c"), this::load);
    reads.clear();

    cache.policies(List.of("a", "b", "c"), this::load);

    assertThat(reads).containsExactly(List.of("a"));
  }

  @Test
  void aZeroCacheTimeReadsEveryPoll() {
    PolicyCache cache = new PolicyCache(0, 100, nanos::get);
    cache.policies(List.of("a"), this::load);
    cache.policies(List.of("a"), this::load);
    assertThat(reads).hasSize(2);
  }
}
