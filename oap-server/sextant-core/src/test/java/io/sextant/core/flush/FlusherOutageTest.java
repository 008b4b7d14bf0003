package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.core.query.mqe.MqeEntity;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A store that goes away: the first failed write queues the batch again, later cycles only probe
 * the store's health (no batch is taken while it is down), and once it is back every call
 * accepted during the outage is answered exactly.
 */
class FlusherOutageTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(100);
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());

  @Test
  void writesWaitForTheStoreAndLoseNothing() {
    FlakyStorage storage = new FlakyStorage();
    Aggregator aggregator = new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
        new AggregatorLimits(100_000, 60, 10), new SimpleMeterRegistry());
    Flusher flusher = new Flusher(aggregator, storage, buckets, new FlusherConfig(1000, 1000, 0, 1, 64L << 20), "c",
        new SimpleMeterRegistry());
    long now = System.currentTimeMillis();

    storage.down = true;
    offer(aggregator, now, 30);
    flusher.flush(false);
    assertThat(storage.writeAttempts.get()).as("the first write after the store went away is tried").isEqualTo(1);

    offer(aggregator, now, 40);
    flusher.flush(false);
    flusher.flush(false);
    assertThat(storage.writeAttempts.get()).as("while the probe fails, no batch is sent").isEqualTo(1);
    assertThat(storage.checks.get()).isEqualTo(2);

    storage.down = false;
    offer(aggregator, now, 5);
    flusher.close();
    assertThat(storage.writeAttempts.get()).isEqualTo(2);

    long minute = buckets.minuteBucket(now);
    Double cpm = QueryServices.over(storage, catalog).metrics()
        .read("service_cpm", Map.of(), new MqeEntity("b", true, null, null, null, null, true, null, null, null),
            List.of(minute), Step.MINUTE)
        .get(0).values()[0];
    assertThat(cpm).isEqualTo(75.0);
  }

  private static void offer(Aggregator aggregator, long time, int calls) {
    for (int i = 0; i < calls; i++) {
      aggregator.offer(new CallRecord(time, time + 10, "a", "a-0", "b", "b-0", "GET:/x", 10, 200, true,
          CallProtocol.HTTP, DetectPoint.SERVER, "", "", 100, 100, Layer.MESH, Map.of(), Map.of()));
    }
  }
}
