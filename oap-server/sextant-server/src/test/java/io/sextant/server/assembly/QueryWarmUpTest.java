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
  void aRoundAnsweredWithErrorsEndsTheWarmUpAtOnce() {
    // A schema without the dashboards' fields: every request is refused, as when storage is away.
    GraphQL empty = GraphQL.newGraphQL(new SchemaGenerator().makeExecutableSchema(
        new SchemaParser().parse("type Query { nothing: Int }"), RuntimeWiring.newRuntimeWiring().build())).build();
    QueryWarmUp warmUp =
        new QueryWarmUp(empty, ZoneOffset.UTC, Clock.systemUTC(), Duration.ofSeconds(60), new SimpleMeterRegistry());
    long started = System.nanoTime();
    assertThat(warmUp.run()).as("one round: a dashboard and the topology (listServices aside)").isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }

  private static double metric(TestServer sextant, String name) throws Exception {
    String line = sextant.get("/metrics").lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
