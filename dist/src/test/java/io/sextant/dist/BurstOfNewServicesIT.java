package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sextant.testkit.poll.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as shipped (memory store, the launcher's 512 MB heap) survives a burst of new
 * service names, the way a misconfigured naming rule or a load test with random hosts sends them
 * (issue 22: 20,000 names in 10 s ran it out of memory at the end of the minute). The burst fills
 * the aggregator within one minute; when that minute closes (no grace minute here, so within 60 s)
 * its collection, the hour and day roll-ups (written every 5 s here) and the write of every new
 * entity come together, where the heap peaked before. Afterwards the collector still answers, is ready, keeps its
 * embedded store within its heap bound, has kept every minute of the services it had before the
 * burst (issue 46: the store evicted their oldest minutes for the burst's), and counts a
 * well-behaved service exactly.
 */
class BurstOfNewServicesIT {
  private static final int STREAMS = 60;
  private static final int MESSAGES = 10;
  private static final int PER_MESSAGE = 100;
  private static final int CONTROL_SERVICES = 5;
  private static final int CONTROL_MINUTES = 5;

  @Test
  void aBurstOfNewServiceNamesCostsCountedRefusalsNotTheCollector(@TempDir Path unpacked) throws Exception {
    Path home = ShippedTarball.unpack(unpacked);
    try (RunningSextant sextant = RunningSextant.start(home, Map.of("SEXTANT_CORE_GRACE_MINUTES", "0",
        "SEXTANT_CORE_ROLLUP_INTERVAL_MILLIS", "5000"),
        Duration.ofSeconds(60))) {
      Clients c = sextant.clients();
      if (System.currentTimeMillis() % 60_000 > 45_000) {
        Thread.sleep(60_000 - System.currentTimeMillis() % 60_000); // the burst within one minute
      }
      long minute = System.currentTimeMillis() / 60_000 * 60_000 + 1_000;
      // Services the mesh had before the burst, with five minutes of history each.
      for (int svc = 0; svc < CONTROL_SERVICES; svc++) {
        for (int m = 1; m <= CONTROL_MINUTES; m++) {
          assertThat(c.mesh("control-client", "control-" + svc, minute - m * 60_000L, 10 + svc))
              .isEqualTo(Status.Code.OK);
        }
      }
      int refusedStreams = 0;
      for (int s = 0; s < STREAMS; s++) {
        Status.Code code = c.newServices("burst", s * MESSAGES * PER_MESSAGE, MESSAGES, PER_MESSAGE, minute);
        assertThat(code).as("stream %d", s).isIn(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
        refusedStreams += code == Status.Code.OK ? 0 : 1;
      }
      LaunchedDistribution process = sextant.process();
      double accepted = c.metric("sextant_records_accepted_total{kind=\"call\"");
      // Taken until the newcomers' half of the aggregator is full (5,000 calls of new names by default),
      // then refused: the other half stays for services the mesh already had.
      assertThat(accepted).as("the burst reached the aggregator").isGreaterThanOrEqualTo(2_000);

      // The closed minute leaves the aggregator within a collection or two; the collector lives on.
      Poll.until("the burst's minute closed and collected", Duration.ofSeconds(90), () -> {
        return metric(process, c, "sextant_aggregator_open_accumulators") == 0;
      });
      // Two roll-up writes (every 5 s here) of the burst's hour and day, where the heap peaked before: the
      // time is the point, the checks below come after it.
      Thread.sleep(12_000);
      Poll.until("ready after the burst", Duration.ofSeconds(60), () -> {
        process.assertAlive();
        return c.status("/readyz") == 200;
      });
      double heapMax = metric(process, c, "jvm_memory_max_bytes{area=\"heap\"");
      assertThat(metric(process, c, "sextant_storage_memory_partial_bytes")).as("the embedded store within its bound")
          .isLessThanOrEqualTo(heapMax / 5);
      assertThat(metric(process, c, "sextant_flush_partials_dropped_total"))
          .as("nothing dropped on the way to the store").isZero();

      // The burst made the store evict (it holds a fifth of the heap), and what it evicted was its own:
      // every minute of the services that were there before is exact.
      double evicted = metric(process, c, "sextant_storage_memory_evicted_partials_total");
      for (int svc = 0; svc < CONTROL_SERVICES; svc++) {
        for (int m = 1; m <= CONTROL_MINUTES; m++) {
          assertThat(c.value("service_cpm", "serviceName: \"control-" + svc + "\"", minute - m * 60_000L))
              .as("control-%d, %d minutes before the burst", svc, m).isEqualTo(String.valueOf(10 + svc));
        }
      }

      // A well-behaved service, after the burst, is counted exactly.
      long now = System.currentTimeMillis();
      assertThat(c.mesh("steady-client", "steady", now, 7)).isEqualTo(Status.Code.OK);
      assertThat(Poll.until("steady counted", Duration.ofSeconds(30),
          () -> c.value("service_cpm", "serviceName: \"steady\"", now), "7"::equals)).isEqualTo("7");
      process.assertAlive();
      System.out.printf("burst: %d calls accepted to new services, %d of %d streams refused (aggregator full),"
          + " %d partials evicted from the store%n", (long) accepted, refusedStreams, STREAMS, (long) evicted);
    }
  }

  /** A metric of the collector; when it cannot answer, whether it died (and why) is the failure. */
  private static double metric(LaunchedDistribution process, Clients c, String series) throws Exception {
    try {
      return c.metric(series);
    } catch (java.io.IOException e) {
      process.assertAlive();
      throw e;
    }
  }
}
