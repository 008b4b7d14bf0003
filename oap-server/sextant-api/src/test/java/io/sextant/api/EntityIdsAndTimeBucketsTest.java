package io.sextant.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.id.EntityIds;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class EntityIdsAndTimeBucketsTest {
  @Test
  void idsAreSkyWalkingsEncoding() {
    // Values as SkyWalking's IDManager produces them (base64 of the UTF-8 name).
    assertThat(EntityIds.serviceId("productpage", true)).isEqualTo("cHJvZHVjdHBhZ2U=.1");
    assertThat(EntityIds.serviceId("mysql", false)).isEqualTo("bXlzcWw=.0");
    assertThat(EntityIds.instanceId("cHJvZHVjdHBhZ2U=.1", "pod-1")).isEqualTo("cHJvZHVjdHBhZ2U=.1_cG9kLTE=");
    assertThat(EntityIds.relationId("YQ==.1", "Yg==.1")).isEqualTo("YQ==.1-Yg==.1");
    assertThat(EntityIds.parseServiceId("cHJvZHVjdHBhZ2U=.1").name()).isEqualTo("productpage");
    assertThat(EntityIds.parseChildId("cHJvZHVjdHBhZ2U=.1_cG9kLTE=").name()).isEqualTo("pod-1");
    assertThatThrownBy(() -> EntityIds.parseServiceId("nope")).hasMessageContaining("malformed service id");
    assertThatThrownBy(() -> EntityIds.parseChildId("cHJvZHVjdHBhZ2U=.1_@@")).hasMessageContaining("malformed id");
  }

  @Test
  void bucketsFollowTheConfiguredZone() {
    long t = Instant.parse("2026-11-22T10:15:30Z").toEpochMilli();
    assertThat(new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()).minuteBucket(t)).isEqualTo(202611221015L);
    TimeBuckets india = new TimeBuckets(ZoneId.of("Asia/Kolkata"), Clock.systemUTC());
    assertThat(india.minuteBucket(t)).isEqualTo(202611221545L);
    assertThat(india.startMillis(202611221545L, Step.MINUTE)).isEqualTo(t - 30_000);
    assertThat(TimeBuckets.rollup(202611221545L, Step.HOUR)).isEqualTo(2026112215L);
    assertThat(TimeBuckets.rollup(202611221545L, Step.DAY)).isEqualTo(20261122L);
  }

  @Test
  void durationsParseAndEnumerate() {
    assertThat(TimeBuckets.parse("2026-11-22 1015", Step.MINUTE)).isEqualTo(202611221015L);
    assertThat(TimeBuckets.parse("2026-11-22 101530", Step.MINUTE)).isEqualTo(202611221015L);
    assertThat(TimeBuckets.parse("2026-11-22 10", Step.HOUR)).isEqualTo(2026112210L);
    assertThat(TimeBuckets.parse("2026-11-22", Step.DAY)).isEqualTo(20261122L);
    assertThat(TimeBuckets.range(202611222358L, 202611230001L, Step.MINUTE, 100))
        .containsExactly(202611222358L, 202611222359L, 202611230000L, 202611230001L);
    assertThat(TimeBuckets.range(2026112222L, 2026112301L, Step.HOUR, 100)).hasSize(4);
    assertThat(TimeBuckets.format(202611221015L, Step.MINUTE)).isEqualTo("2026-11-22 1015");
    assertThat(TimeBuckets.plus(202611230000L, Step.MINUTE, -1)).isEqualTo(202611222359L);
    assertThatThrownBy(() -> TimeBuckets.range(202611220000L, 202611230000L, Step.MINUTE, 10))
        .hasMessageContaining("more than 10 minute points");
    assertThatThrownBy(() -> TimeBuckets.parse("2026-11-22 10:15", Step.MINUTE))
        .hasMessageContaining("yyyy-MM-dd HHmm");
  }
}
