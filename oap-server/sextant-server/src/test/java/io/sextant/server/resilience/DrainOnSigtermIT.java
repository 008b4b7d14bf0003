package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.stub.StreamObserver;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.CollectorProcess;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGTERM on a real collector process with a mesh stream open: readiness goes false while the port
 * still answers, the open stream is ended (the client can reconnect elsewhere), and everything the
 * collector accepted is written before it exits: a second collector on the same Elasticsearch
 * answers exactly the accepted totals.
 */
class DrainOnSigtermIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Test
  void sigtermDrainsReadinessThenStreamsThenWritesEverythingAccepted() throws Exception {
    // No periodic write before the stop: only the drain can write what was accepted.
    CollectorProcess collector = CollectorProcess.start("draining", CollectorProcess.onElasticsearch(
        ES.hostAndPort(), "drain", Map.of("SEXTANT_SERVER_DRAIN_READINESS_SECONDS", "2",
            "SEXTANT_SERVER_SHUTDOWN_GRACE_SECONDS", "10", "SEXTANT_SERVER_DRAIN_TIMEOUT_SECONDS", "20",
            "SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", "60000")));
    int grpcPort = collector.grpcPort;
    try {
      collector.awaitReady();

      long time = (System.currentTimeMillis() / 60_000 - 2) * 60_000 + 1000;
      List<ServiceMeshMetrics> messages = Bookinfo.standard(time).messages(5);
      CompletableFuture<String> streamEnd = new CompletableFuture<>();
      AtomicLong streamEndedAfterNanos = new AtomicLong();
      StreamObserver<ServiceMeshMetrics> stream = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
          .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class)
          .collect(new StreamObserver<MeshProbeDownstream>() {
            @Override
            public void onNext(MeshProbeDownstream value) {}

            @Override
            public void onError(Throwable t) {
              streamEndedAfterNanos.set(System.nanoTime());
              streamEnd.complete("error: " + t);
            }

            @Override
            public void onCompleted() {
              streamEnd.complete("completed");
            }
          });
      messages.forEach(stream::onNext); // and the stream stays open, as a sidecar's does
      long sent = (long) Bookinfo.standard(time).http.size() + Bookinfo.standard(time).tcp.size();
      long accepted = collector.awaitMeshAccepted(sent);
      assertThat(accepted).isEqualTo(sent);

      long sigterm = System.nanoTime();
      collector.terminate();
      // Readiness goes false while the port still answers (it answers 503 for drainReadinessSeconds).
      AtomicBoolean saw503 = new AtomicBoolean();
      Poll.until("the port closed after SIGTERM", Duration.ofSeconds(20), () -> {
        try {
          int code = collector.readyz();
          assertThat(code).as("readyz after SIGTERM").isIn(200, 503);
          if (code == 503) {
            saw503.set(true);
          } else {
            assertThat(saw503.get()).as("readyz never turns ready again once draining").isFalse();
          }
          return false;
        } catch (IOException e) {
          return true; // refused, or a connection cut by the stop itself: the port is closing
        }
      });
      assertThat(saw503.get()).as("/readyz answered 503 before the port closed").isTrue();

      // The open stream is ended by the server at once after the readiness period (not after the 10 s
      // grace), with a status that tells the client to go elsewhere and how much of the stream was handled.
      String end = streamEnd.get(15, TimeUnit.SECONDS);
      assertThat(end).contains("UNAVAILABLE").contains("reconnect to another collector")
          .contains("(" + messages.size() + " messages of this stream were handled)");
      assertThat(streamEndedAfterNanos.get() - sigterm).as("stream ended long before the grace period")
          .isBetween(TimeUnit.SECONDS.toNanos(2), TimeUnit.SECONDS.toNanos(8));
      assertThat(collector.waitFor(40)).as("the collector exits").isTrue();
      assertThat(collector.logText()).contains("draining: not ready").contains("ended 1 open client streams")
          .contains("records accepted by the receivers: ").contains("everything accepted was written")
          .doesNotContain("drain timeout");
      assertThat(collector.loggedMeshAccepted()).isEqualTo(sent);

      // Each HTTP call is reported by both sidecars: the HTTP services' calls (service_cpm) sum to half of
      // the accepted HTTP records (all records were accepted, asserted above; TCP records are no calls).
      long acceptedHttp = accepted - Bookinfo.standard(time).tcp.size();
      TestServer reader = new TestServer(Map.of("storage.selector", "elasticsearch",
          "storage.elasticsearch.hosts", ES.hostAndPort(), "storage.elasticsearch.indexPrefix", "drain",
          "core.collectorId", "reader"));
      try {
        long calls = 0;
        for (String service : List.of("productpage", "details", "reviews", "ratings")) {
          calls += calls(reader, service, time);
        }
        assertThat(calls).isEqualTo(acceptedHttp / 2);
        assertThat(calls(reader, "productpage", time)).isEqualTo(10);
      } finally {
        reader.close();
      }
    } finally {
      collector.close();
    }
  }

  private static long calls(TestServer reader, String service, long time) throws Exception {
    String minute = TimeBuckets.format(new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC()).minuteBucket(time),
        Step.MINUTE);
    JsonNode r = reader.data("{ r: execExpression(expression: \"service_cpm\", entity: {serviceName: \"" + service
        + "\", normal: true}, duration: {start: \"" + minute + "\", end: \"" + minute + "\", step: MINUTE})"
        + " { error results { values { value } } } }").get("r");
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    JsonNode v = r.get("results").get(0).get("values").get(0).get("value");
    return v.isNull() ? 0 : Math.round(Double.parseDouble(v.asText()));
  }
}
