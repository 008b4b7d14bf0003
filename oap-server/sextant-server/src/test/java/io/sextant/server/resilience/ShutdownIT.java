package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A graceful stop writes everything accepted, even what no periodic flush has written yet. */
class ShutdownIT {
  @Test
  void gracefulStopFlushesAcceptedData() throws Exception {
    // The periodic flush is a minute away: only the shutdown flush can write this data.
    TestServer sextant = new TestServer(Map.of("core.flushIntervalMillis", "60000"));
    long time = System.currentTimeMillis();
    Status status = sextant.stream(Bookinfo.standard(time).messages(5));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    long minute = new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC()).minuteBucket(time);
    MqeEntity productpage = new MqeEntity("productpage", true, null, null, null, null, null, null, null, null);
    // Queries see it at once (this collector's unwritten data), storage has none of it yet.
    assertThat(sextant.server.query().metrics().read("service_cpm", Map.of(), productpage, List.of(minute), Step.MINUTE)
        .get(0).values()[0]).isEqualTo(10.0);
    assertThat(sextant.server.storage().metrics().read("service_cpm",
        List.of(EntityIds.serviceId("productpage", true)), Step.MINUTE, minute, minute)).isEmpty();

    sextant.close();

    assertThat(sextant.server.storage().metrics().read("service_cpm",
        List.of(EntityIds.serviceId("productpage", true)), Step.MINUTE, minute, minute)).isNotEmpty();

    assertThat(sextant.server.query().metrics().read("service_cpm", Map.of(), productpage, List.of(minute), Step.MINUTE)
        .get(0).values()[0]).isEqualTo(10.0);
    long hour = TimeBuckets.rollup(minute, Step.HOUR);
    assertThat(sextant.server.query().metrics().read("service_sla", Map.of(), productpage, List.of(hour), Step.HOUR)
        .get(0).values()[0]).isEqualTo(8000.0);
  }
}
