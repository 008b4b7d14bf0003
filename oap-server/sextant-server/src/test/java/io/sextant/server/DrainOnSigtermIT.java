package io.sextant.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.stub.StreamObserver;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  static final ElasticsearchExtension ES = new ElasticsearchExtension();
  private static final Pattern ACCEPTED =
      Pattern.compile("sextant_receiver_records_accepted_total\\{receiver=\"mesh\"} ([0-9.E]+)");

  @Test
  void sigtermDrainsReadinessThenStreamsThenWritesEverythingAccepted() throws Exception {
    int grpcPort = TestServer.freePort();
    int httpPort = TestServer.freePort();
    Path log = Files.createTempFile("sextant-drain", ".log");
    ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-cp", System.getProperty("java.class.path"), "io.sextant.server.assembly.Main")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.put("SEXTANT_SERVER_HOST", "127.0.0.1");
    env.put("SEXTANT_SERVER_GRPC_PORT", String.valueOf(grpcPort));
    env.put("SEXTANT_SERVER_HTTP_PORT", String.valueOf(httpPort));
    env.put("SEXTANT_SERVER_DRAIN_READINESS_SECONDS", "2");
    env.put("SEXTANT_SERVER_SHUTDOWN_GRACE_SECONDS", "1");
    env.put("SEXTANT_SERVER_DRAIN_TIMEOUT_SECONDS", "20");
    env.put("SEXTANT_CORE_TIMEZONE", "UTC");
    env.put("SEXTANT_CORE_COLLECTOR_ID", "draining");
    // No periodic write before the stop: only the drain can write what was accepted.
    env.put("SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", "60000");
    env.put("SEXTANT_STORAGE_SELECTOR", "elasticsearch");
    env.put("SEXTANT_STORAGE_ELASTICSEARCH_HOSTS", ES.hostAndPort());
    env.put("SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX", "drain");
    Process collector = pb.start();
    try {
      awaitReady(httpPort, collector, log);

      long time = (System.currentTimeMillis() / 60_000 - 2) * 60_000 + 1000;
      List<ServiceMeshMetrics> messages = Bookinfo.standard(time).messages(5);
      CompletableFuture<String> streamEnd = new CompletableFuture<>();
      StreamObserver<ServiceMeshMetrics> stream = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
          .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class)
          .collect(new StreamObserver<MeshProbeDownstream>() {
            @Override
            public void onNext(MeshProbeDownstream value) {}

            @Override
            public void onError(Throwable t) {
              streamEnd.complete("error: " + t);
            }

            @Override
            public void onCompleted() {
              streamEnd.complete("completed");
            }
          });
      messages.forEach(stream::onNext); // and the stream stays open, as a sidecar's does
      long sent = Bookinfo.standard(time).http.size() + Bookinfo.standard(time).tcp.size();
      double accepted = awaitAccepted(httpPort, sent);
      assertThat(accepted).isEqualTo(sent);

      long sigterm = System.nanoTime();
      collector.destroy(); // SIGTERM
      // Readiness goes false while the port still answers (it answers 503 for drainReadinessSeconds).
      boolean saw503 = false;
      boolean closed = false;
      while (!closed && System.nanoTime() - sigterm < TimeUnit.SECONDS.toNanos(20)) {
        try {
          int code = TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
              + "/readyz")).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
          assertThat(code).as("readyz after SIGTERM").isIn(200, 503);
          if (code == 503) {
            saw503 = true;
          } else {
            assertThat(saw503).as("readyz never turns ready again once draining").isFalse();
          }
        } catch (ConnectException e) {
          closed = true;
        } catch (IOException e) {
          // a connection cut by the stop itself: the port is closing
          closed = true;
        }
        Thread.sleep(50);
      }
      assertThat(saw503).as("/readyz answered 503 before the port closed").isTrue();
      assertThat(closed).as("the port closed").isTrue();

      // The open stream is ended by the server (not left hanging), so the client can reconnect.
      String end = streamEnd.get(15, TimeUnit.SECONDS);
      assertThat(end).isNotNull();
      assertThat(collector.waitFor(40, TimeUnit.SECONDS)).as("the collector exits").isTrue();
      assertThat(Files.readString(log)).contains("draining: not ready")
          .contains("everything accepted was written").doesNotContain("drain timeout");

      // Each HTTP call is reported by both sidecars: the HTTP services' calls (service_cpm) sum to half of
      // the accepted HTTP records (all records were accepted, asserted above; TCP records are no calls).
      long acceptedHttp = (long) accepted - Bookinfo.standard(time).tcp.size();
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
      collector.destroyForcibly();
      collector.waitFor(10, TimeUnit.SECONDS);
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

  private static void awaitReady(int httpPort, Process collector, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (System.nanoTime() < deadline) {
      assertThat(collector.isAlive()).as("collector died: %s", new Object() {
        @Override
        public String toString() {
          try {
            return Files.readString(log);
          } catch (IOException e) {
            return e.toString();
          }
        }
      }).isTrue();
      try {
        if (TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
            .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("collector not ready in 40 s: " + Files.readString(log));
  }

  private static double awaitAccepted(int httpPort, long expected) throws Exception {
    double accepted = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      String metrics = TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
          + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
      Matcher m = ACCEPTED.matcher(metrics);
      accepted = m.find() ? Double.parseDouble(m.group(1)) : 0;
      if (accepted >= expected) {
        break;
      }
      Thread.sleep(100);
    }
    return accepted;
  }

}
