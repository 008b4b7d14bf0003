package io.sextant.core.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.id.EntityIds;
import org.junit.jupiter.api.Test;

/** The id cache stays within its bytes whatever names arrive, and its ids are right either way. */
class IdCacheTest {
  @Test
  void aMillionNewNamesNeverHoldMoreThanTheByteBound() {
    long maxBytes = 1 << 20;
    IdCache cache = new IdCache(Integer.MAX_VALUE, maxBytes,
        new ChildBudgets(2000, 2000, new SimpleMeterRegistry()));
    long peak = 0;
    for (int i = 0; i < 1_000_000; i++) {
      String service = "flood-" + i + ".default";
      IdCache.ServiceIds ids = cache.idsOf(service);
      assertThat(ids.id).isEqualTo(EntityIds.serviceId(service, true));
      String pod = "pod-" + i;
      assertThat(ids.instance(ids.instanceName(pod, true))).isEqualTo(EntityIds.instanceId(ids.id, pod));
      peak = Math.max(peak, cache.bytes());
    }
    assertThat(peak).isLessThanOrEqualTo(maxBytes + 1024);
    assertThat(cache.size()).isPositive();
  }

  @Test
  void aServiceKeepsItsIdsWhileTheCacheHasRoom() {
    IdCache cache = new IdCache(1000, 1 << 20, new ChildBudgets(2000, 2000, new SimpleMeterRegistry()));
    IdCache.ServiceIds first = cache.idsOf("reviews.default");
    assertThat(cache.idsOf("reviews.default")).isSameAs(first);
    for (int i = 0; i < 2000; i++) {
      cache.idsOf("other-" + i); // past 1,000 entries the cache starts over
    }
    assertThat(cache.idsOf("reviews.default")).isNotSameAs(first);
    assertThat(cache.size()).isLessThanOrEqualTo(1000);
  }
}
