package io.sextant.benchmarks;

import static io.sextant.benchmarks.ToolRuns.awaitListed;
import static io.sextant.benchmarks.ToolRuns.capture;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code QueryLoad --restart} (issue 24's first-minute figure) keeps a dashboard open across a
 * server's restart and measures from the moment the new server is ready, not before; it fails
 * when no restart comes.
 */
class QueryLoadAcrossRestartTest {
  @Test
  void measuresTheRestartedServerFromTheMomentItIsReady() throws Exception {
    int grpcPort = FreePort.any();
    int httpPort = FreePort.any();
    String grpc = "127.0.0.1:" + grpcPort;
    String http = "127.0.0.1:" + httpPort;
    SextantServer before = server(grpcPort, httpPort, "0");
    CompletableFuture<String> load;
    try {
      probe(grpc, http);
      long answered = graphqlRequests(before);
      load = CompletableFuture.supplyAsync(() -> {
        try {
          return capture(() -> QueryLoad.execute("--http=" + http, "--queries=dashboard", "--dashboard-size=2",
              "--minutes=5", "--restart", "--warmup=60", "--duration=2", "--report=1"));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      // The dashboard runs against the first server, warming the client: a few rounds answered.
      Poll.until("dashboard requests on the first server", Duration.ofSeconds(30),
          () -> graphqlRequests(before) >= answered + 4);
    } finally {
      before.close();
    }
    // The restarted server, its warm-up on as shipped (one round: its memory store is empty again).
    SextantServer after = server(grpcPort, httpPort, "15");
    try {
      probe(grpc, http);
      String out = load.get(60, TimeUnit.SECONDS);
      assertThat(out).contains("the server is ready again: measuring", "measured from the server's restart",
          "all requests succeeded").containsPattern("\\ndashboard-2 +[1-9][0-9,]* +0 ").endsWith("exit 0");
      assertThat(capture(() -> QueryLoad.execute("--http=" + http, "--queries=dashboard", "--minutes=5",
          "--restart", "--warmup=1", "--duration=1"))).contains("the server did not restart within --warmup=1 s")
          .endsWith("exit 1");
    } finally {
      after.close();
    }
  }

  private static SextantServer server(int grpcPort, int httpPort, String warmUpSeconds) {
    return new SextantServer(SextantConfig.defaults().with(Map.of("query.warmUpSeconds", warmUpSeconds,
        "server.host", "127.0.0.1", "server.grpcPort", String.valueOf(grpcPort),
        "server.httpPort", String.valueOf(httpPort), "core.flushIntervalMillis", "500",
        "core.collectorId", "restart-test"))).start();
  }

  /** GraphQL requests the server has answered. */
  private static long graphqlRequests(SextantServer server) {
    return server.registry().find("sextant_graphql_request_duration").timers().stream().mapToLong(t -> t.count())
        .sum();
  }

  /** One probe service with calls in the current minute, listed. */
  private static void probe(String grpc, String http) throws Exception {
    assertThat(FreshnessProbe.execute("--target=" + grpc, "--http=" + http, "--probes=1", "--records=10",
        "--prefix=restart")).isZero();
    awaitListed(http, "restart-");
  }
}
