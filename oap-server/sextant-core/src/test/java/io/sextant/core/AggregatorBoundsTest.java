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

/**
 * The aggregator's bounds: at most {@code maxAccumulators} open, half of them for names without
 * standing, and records outside the time window refused.
 */
class AggregatorBoundsTest {
  private static CallRecord call(long time, String dest, String endpoint) {
    return new CallRecord(time, time, "src", "src-0", dest, dest + "-0", endpoint, 5, 200, true, CallProtocol.HTTP,
        DetectPoint.SERVER, "", "", 0, 0, Layer.MESH, Map.of(), Map.of());
  }

  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Aggregator a = new Aggregator(MetricFamilies.catalog(500), RecordKindDispatcher.standard(100),
      buckets, new AggregatorLimits(1000, 60, 10), registry);
  private final long now = System.currentTimeMillis();

  /** Endpoints {@code from..to-1} of svc seen {@code minutesAgo} and collected: they have standing now. */
  private void seenEarlier(int minutesAgo, int from, int to) {
    for (int i = from; i < to; i++) {
      assertThat(a.offer(call(now - minutesAgo * 60_000L, "svc", "GET:/known" + i))).isEqualTo(Admission.ACCEPTED);
    }
    a.collect(buckets.minuteBucket(now - 60_000), false);
  }

  private int offered(String prefix, int from, int to) {
    int accepted = 0;
    for (int i = from; i < to; i++) {
      if (a.offer(call(now, "svc", prefix + i)) == Admission.ACCEPTED) {
        accepted++;
      }
    }
    return accepted;
  }

  private double rejected(String reason) {
    return registry.get("sextant_records_rejected").tag("reason", reason).counter().count();
  }

  @Test
  void aFloodOfNewNamesTakesAtMostHalfAndKnownEntitiesKeepTheirNextMinute() {
    seenEarlier(2, 0, 300);
    int flood = offered("GET:/flood", 0, 1000);
    // Half of the 1,000 accumulators for names never seen (each new endpoint is one).
    assertThat(flood).isBetween(490, 500);
    assertThat(a.offer(call(now, "svc", "GET:/flood-more"))).isEqualTo(Admission.REJECTED_NEW_ENTITIES);
    assertThat(rejected("new_entities")).isEqualTo(1000 - flood + 1);
    // The endpoints the mesh had before the flood all get this minute.
    assertThat(offered("GET:/known", 0, 300)).isEqualTo(300);
    assertThat(rejected("overloaded")).isZero();
    assertThat(a.openAccumulators()).isLessThanOrEqualTo(1000);
  }

  @Test
  void pastTheLimitEvenKnownEntitiesAreRefusedWhileOpenOnesStillCount() {
    // Names earn standing a share at a time: 450 new, then those 450 again and 450 new.
    seenEarlier(3, 0, 450);
    seenEarlier(2, 0, 900);
    int accepted = offered("GET:/known", 0, 990);
    assertThat(a.openAccumulators()).isLessThanOrEqualTo(1000);
    assertThat(accepted).isBetween(980, 1000 - 5 - 1);
    assertThat(rejected("overloaded")).isEqualTo(990 - accepted);
    // Those already open this minute still count.
    assertThat(a.offer(call(now, "svc", "GET:/known0"))).isEqualTo(Admission.ACCEPTED);
  }

  @Test
  void recordsOutsideTheWindowAreRefused() {
    assertThat(a.offer(call(now - 61 * 60_000L, "svc", "GET:/"))).isEqualTo(Admission.REJECTED_TIME_RANGE);
    assertThat(a.offer(call(now + 11 * 60_000L, "svc", "GET:/"))).isEqualTo(Admission.REJECTED_TIME_RANGE);
    assertThat(a.offer(call(now, "svc", "GET:/"))).isEqualTo(Admission.ACCEPTED);
  }
}
