package io.sextant.server.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.GraphQL;
import graphql.schema.idl.RuntimeWiring;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SextantGraphql;
import io.sextant.server.http.GraphqlExchange;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import io.sextant.testkit.poll.Poll;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The warm-up after a start runs the dashboards' queries until its rounds stop getting faster (one
 * round when nothing is stored yet) and stops: every request valid against the schema (no
 * errors). It runs after the collector is ready, never holding readiness.
 */
class QueryWarmUpTest {
  @Test
  void withNoServiceStoredYetTheWarmUpIsOneRoundAndTheServerReadyAtOnce() throws Exception {
    try (TestServer sextant = new TestServer(Map.of("query.warmUpSeconds", "15"))) {
      assertThat(sextant.get("/readyz")).as("ready at once: the warm-up runs after").isEqualTo("ready");
      Poll.until("listServices, a dashboard, topology", Duration.ofSeconds(10),
          () -> metric(sextant, "sextant_query_warm_up_requests_total") == 3);
      assertThat(metric(sextant, "sextant_query_warm_up_errors_total")).as("answered with errors").isZero();
      assertThat(sextant.stream(Bookinfo.standard(System.currentTimeMillis()).messages(5)).isOk()).isTrue();
    }
  }

  @Test
  void aRoundAnsweredWithErrorsEndsTheWarmUpAtOnce() {
    // A schema without the dashboards' fields: every request is refused, as when storage is away.
    GraphQL empty = GraphQL.newGraphQL(new SchemaGenerator().makeExecutableSchema(
        new SchemaParser().parse("type Query { nothing: Int }"), RuntimeWiring.newRuntimeWiring().build())).build();
    QueryWarmUp warmUp = new QueryWarmUp(new GraphqlExchange(empty), ZoneOffset.UTC, Clock.systemUTC(),
        Duration.ofSeconds(60), new SimpleMeterRegistry());
    long started = System.nanoTime();
    assertThat(warmUp.run()).as("one round: a dashboard and the topology (listServices aside)").isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }

  /** The stored services are listed from the answer's JSON and each one's dashboard read without errors. */
  @Test
  void withServicesStoredTheWarmUpReadsTheirDashboardsRoundAfterRound() {
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(10_000));
    long minute = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()).currentMinuteBucket();
    for (String name : List.of("a", "b", "c", "d")) {
      storage.metadata().upsertServices(List.of(new ServiceMeta(EntityIds.serviceId(name, true), name, true,
          Set.of("MESH"), minute, minute)));
    }
    QueryLimits limits = new QueryLimits(15, 5000, 10_000);
    GraphQL graphql = SextantGraphql.build(SextantGraphql.standardAreas(QueryServices.over(storage,
        MetricFamilies.catalog(100)), new AlarmQueries(() -> storage), limits, "test", () -> CheckResult.OK,
        ZoneOffset.UTC, Clock.systemUTC(), Runnable::run), limits);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    int made = new QueryWarmUp(new GraphqlExchange(graphql), ZoneOffset.UTC, Clock.systemUTC(), Duration.ofSeconds(2),
        registry).run();
    assertThat(made).as("rounds of three dashboards (at most three services) and the topology").isGreaterThan(4)
        .satisfies(n -> assertThat(n % 4).isZero());
    assertThat(registry.counter("sextant_query_warm_up_errors").count()).as("answered with errors").isZero();
  }

  private static double metric(TestServer sextant, String name) throws Exception {
    String line = sextant.get("/metrics").lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
