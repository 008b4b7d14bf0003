package io.sextant.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.receiver.Admission;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricFamilies;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AggregatorBoundsTest {
  private static CallRecord call(long time, String dest, String endpoint) {
    return new CallRecord(time, time, "src", "src-0", dest, dest + "-0", endpoint, 5, 200, true, CallProtocol.HTTP,
        DetectPoint.SERVER, "", "", 0, 0, Layer.MESH, Map.of(), Map.of());
  }

  @Test
  void newEntitiesAreRefusedPastTheLimitWhileKnownOnesStillCount() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Aggregator a = new Aggregator(MetricFamilies.catalog(500), RecordKindDispatcher.standard(100),
        new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()), new AggregatorLimits(1000, 60, 10), registry);
    long now = System.currentTimeMillis();
    int accepted = 0;
    for (int i = 0; i < 1000; i++) {
      if (a.offer(call(now, "svc", "GET:/" + i)) == Admission.ACCEPTED) {
        accepted++;
      }
    }
    assertThat(a.openAccumulators()).isLessThanOrEqualTo(1000);
    assertThat(accepted).isBetween(990, 1000 - 5 - 1);
    assertThat(a.offer(call(now, "svc", "GET:/new"))).isEqualTo(Admission.REJECTED_OVERLOADED);
    assertThat(registry.get("sextant_records_rejected").tag("reason", "overloaded").counter().count()).isGreaterThan(0);
  }

  @Test
  void recordsOutsideTheWindowAreRefused() {
    Aggregator a = new Aggregator(MetricFamilies.catalog(500), RecordKindDispatcher.standard(100),
        new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()), new AggregatorLimits(1000, 60, 10),
        new SimpleMeterRegistry());
    long now = System.currentTimeMillis();
    assertThat(a.offer(call(now - 61 * 60_000L, "svc", "GET:/"))).isEqualTo(Admission.REJECTED_TIME_RANGE);
    assertThat(a.offer(call(now + 11 * 60_000L, "svc", "GET:/"))).isEqualTo(Admission.REJECTED_TIME_RANGE);
    assertThat(a.offer(call(now, "svc", "GET:/"))).isEqualTo(Admission.ACCEPTED);
  }
}
