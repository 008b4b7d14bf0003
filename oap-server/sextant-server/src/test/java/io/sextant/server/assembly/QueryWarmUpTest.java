package io.sextant.server.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.GraphQL;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The warm-up after a start runs the dashboards' queries until its rounds stop getting faster (one
 * round when nothing is stored yet) and stops: every request valid against the schema (no
 * errors). {@code ReadinessTest} holds readiness meanwhile; {@code ShippedModesIT} checks the
 * tarball logs the warm-up before it first answers ready.
 */
class QueryWarmUpTest {
  @Test
  void withNoServiceStoredYetTheWarmUpIsOneRoundAndTheServerReadyAtOnce() throws Exception {
    try (TestServer sextant = new TestServer(Map.of("query.warmUpSeconds", "60"))) {
      long started = System.nanoTime();
      while (!sextant.get("/readyz").equals("ready")) {
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("a new installation is ready at once")
            .isLessThan(Duration.ofSeconds(5));
        Thread.sleep(20);
      }
      assertThat(metric(sextant, "sextant_query_warm_up_requests_total")).as("listServices, a dashboard, topology")
          .isEqualTo(3);
      assertThat(metric(sextant, "sextant_query_warm_up_errors_total")).as("answered with errors").isZero();
      assertThat(sextant.stream(Bookinfo.standard(System.currentTimeMillis()).messages(5)).isOk()).isTrue();
    }
  }

  @Test
  void theWarmUpStopsOnceNoRoundIsTenPercentFasterThanTheBestForThreeSeconds() {
    long s = 1_000_000_000L;
    long ms = 1_000_000L;
    QueryWarmUp.Progress progress = new QueryWarmUp.Progress(0);
    progress.round(2_900 * ms, 2_900 * ms); // a slow first round is the best so far
    assertThat(progress.stalled(4 * s)).isFalse();
    progress.round(300 * ms, 5 * s);
    progress.round(100 * ms, 7 * s);
    assertThat(progress.stalled(9 * s)).as("faster 2 s ago").isFalse();
    progress.round(95 * ms, 8 * s); // 5% faster: no progress
    progress.round(92 * ms, 9 * s);
    assertThat(progress.stalled(9_999 * ms)).isFalse();
    assertThat(progress.stalled(10 * s)).as("3 s without a round 10% faster than 100 ms").isTrue();
  }

  @Test
  void aRoundAnsweredWithErrorsEndsTheWarmUpAtOnce() {
    // A schema without the dashboards' fields: every request is refused, as when storage is away.
    GraphQL empty = GraphQL.newGraphQL(new SchemaGenerator().makeExecutableSchema(
        new SchemaParser().parse("type Query { nothing: Int }"), RuntimeWiring.newRuntimeWiring().build())).build();
    AtomicInteger done = new AtomicInteger();
    QueryWarmUp warmUp = new QueryWarmUp(empty, ZoneOffset.UTC, Clock.systemUTC(), Duration.ofSeconds(60),
        done::incrementAndGet, new SimpleMeterRegistry());
    long started = System.nanoTime();
    assertThat(warmUp.run()).as("one round: a dashboard and the topology (listServices aside)").isEqualTo(2);
    assertThat(done).hasValue(1);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }

  private static double metric(TestServer sextant, String name) throws Exception {
    String line = sextant.get("/metrics").lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
