package io.sextant.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SextantGraphql;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sextant's own share of the UI's topology request, without storage latency: the
 * {@code getServicesTopology} query of {@link QueryLoad} for 220 services and 446 calls (both
 * detect points) over an hour, from the in-memory store, executed by the GraphQL engine and
 * serialized to the JSON bytes the server sends. {@code getGlobalTopology} answers the same nodes
 * and calls, from the answer it kept while the edges and services stay the same. {@code expression}
 * (one-service {@code service_cpm}) and {@code dashboard} (a mesh service dashboard's first four
 * widgets in one request) read the last half hour, each minute a partial from each of three
 * collectors, as the live-read benchmark's requests do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgs = {"-Xmx512m", "-XX:+UseParallelGC"})
public class GraphqlBenchmark {
  static final int SERVICES = 220;
  static final int CALLS = 446;
  /** A dashboard of the last half hour, as people open one. */
  static final int MINUTES = 30;
  /** Collectors writing each minute's partials to the one store. */
  static final int COLLECTORS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  private GraphQL graphql;
  private GraphQL metricsGraphql;
  private ExecutionInput topology;
  private ExecutionInput globalTopology;
  private ExecutionInput expression;
  private ExecutionInput dashboard;

  @Setup
  public void setUp() {
    TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
    List<String> ids = new ArrayList<>();
    List<ServiceMeta> services = new ArrayList<>();
    long end = buckets.currentMinuteBucket();
    long start = TimeBuckets.plus(end, Step.MINUTE, -59);
    for (int i = 0; i < SERVICES; i++) {
      String id = EntityIds.serviceId("service-" + i, true);
      ids.add(id);
      services.add(new ServiceMeta(id, "service-" + i, true, Set.of("MESH"), start, end));
    }
    storage.metadata().upsertServices(services);
    Random random = new Random(42);
    List<Edge> edges = new ArrayList<>();
    Set<String> pairs = new HashSet<>();
    while (edges.size() < 2 * CALLS) {
      String source = ids.get(random.nextInt(SERVICES));
      String dest = ids.get(random.nextInt(SERVICES));
      String component = random.nextInt(10) == 0 ? "tcp" : "http";
      Edge client = new Edge(io.sextant.api.model.Scope.SERVICE, source, dest, DetectPoint.CLIENT, component);
      if (!source.equals(dest) && pairs.add(source + ">" + dest)) {
        edges.add(client);
        edges.add(new Edge(io.sextant.api.model.Scope.SERVICE, source, dest, DetectPoint.SERVER, component));
      }
    }
    for (long minute : TimeBuckets.range(start, end, Step.MINUTE, 60)) {
      storage.topology().write(edges, minute);
    }
    QueryLimits limits = new QueryLimits(15, 5000, 10_000);
    graphql = engine(storage, limits);
    // Metrics in a store of their own: their calls would be edges of the topology above.
    metricsGraphql = engine(metrics(buckets), limits);
    Map<String, Object> duration = Map.of("start", format(start), "end", format(end), "step", "MINUTE");
    topology = ExecutionInput.newExecutionInput().query(QueryLoad.TOPOLOGY_QUERY)
        .variables(Map.of("ids", ids, "duration", duration)).build();
    globalTopology = ExecutionInput.newExecutionInput().query(QueryLoad.GLOBAL_TOPOLOGY_QUERY)
        .variables(Map.of("layer", "MESH", "duration", duration)).build();
    Map<String, Object> entity = Map.of("serviceName", "service-0", "normal", true, "scope", "Service");
    Map<String, Object> lastHalfHour = Map.of("start", format(TimeBuckets.plus(end, Step.MINUTE, -(MINUTES - 1))),
        "end", format(end), "step", "MINUTE");
    expression = ExecutionInput.newExecutionInput().query(QueryLoad.EXPRESSION_QUERY).variables(
        Map.of("expression", "service_cpm", "entity", entity, "duration", lastHalfHour)).build();
    dashboard = ExecutionInput.newExecutionInput().query(QueryLoad.dashboardQuery(QueryLoad.DASHBOARD.subList(0, 4)))
        .variables(Map.of("entity", entity, "duration", lastHalfHour)).build();
    checkValues(expression, "result");
    for (int i = 0; i < 4; i++) {
      checkValues(dashboard, "w" + i);
    }
    for (ExecutionInput query : List.of(topology, globalTopology)) {
      int calls = ((List<?>) ((Map<?, ?>) ((Map<?, ?>) graphql.execute(query).getData()).get("topology"))
          .get("calls")).size();
      if (calls != CALLS) {
        throw new IllegalStateException("expected " + CALLS + " calls, the query answered " + calls);
      }
    }
  }

  /**
   * {@code service-0}'s inbound calls over the last {@link #MINUTES}, one a second through each of
   * {@link #COLLECTORS} aggregators and flushers: every minute holds a partial per collector.
   */
  private static MemoryStorage metrics(TimeBuckets buckets) {
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
    MetricCatalog catalog = MetricFamilies.catalog(500);
    Random random = new Random(7);
    long now = System.currentTimeMillis();
    for (int c = 0; c < COLLECTORS; c++) {
      Aggregator aggregator = new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
          new AggregatorLimits(1_000_000, 240, 10), new SimpleMeterRegistry());
      Flusher flusher = new Flusher(aggregator, storage, buckets, new FlusherConfig(1000, 1000, 0, 1, 64L << 20),
          "c" + c, new SimpleMeterRegistry());
      for (long t = now - MINUTES * 60_000L + 1000; t <= now; t += 1000) {
        String source = "service-" + (1 + random.nextInt(10));
        boolean ok = random.nextInt(20) > 0;
        aggregator.offer(new CallRecord(t, t + 10, source, source + "-0", "service-0", "service-0-" + c,
            "GET:/e" + random.nextInt(5), random.nextInt(500), ok ? 200 : 503, ok, CallProtocol.HTTP,
            DetectPoint.SERVER, "mTLS", "", 300, 3000, Layer.MESH, Map.of(), Map.of()));
      }
      flusher.close();
    }
    return storage;
  }

  private static GraphQL engine(MemoryStorage storage, QueryLimits limits) {
    return SextantGraphql.build(SextantGraphql.standardAreas(QueryServices.over(storage,
        MetricFamilies.catalog(500)), new AlarmQueries(() -> storage), limits, "bench", () -> CheckResult.OK,
        ZoneOffset.UTC, Clock.systemUTC(), Runnable::run), limits);
  }

  /** Fails the run unless {@code field} answered a value for every minute without an error. */
  private void checkValues(ExecutionInput query, String field) {
    Map<?, ?> answer = (Map<?, ?>) ((Map<?, ?>) metricsGraphql.execute(query).getData()).get(field);
    List<?> results = (List<?>) answer.get("results");
    int values = results.isEmpty() ? 0 : ((List<?>) ((Map<?, ?>) results.get(0)).get("values")).size();
    if (answer.get("error") != null || values != MINUTES) {
      throw new IllegalStateException(field + " answered " + answer);
    }
  }

  /** {@code yyyyMMddHHmm} bucket as the query protocol's {@code yyyy-MM-dd HHmm}. */
  private static String format(long minuteBucket) {
    String b = Long.toString(minuteBucket);
    return b.substring(0, 4) + "-" + b.substring(4, 6) + "-" + b.substring(6, 8) + " " + b.substring(8, 12);
  }

  @Benchmark
  public byte[] servicesTopology() throws Exception {
    return json(graphql.execute(topology));
  }

  @Benchmark
  public byte[] globalTopology() throws Exception {
    return json(graphql.execute(globalTopology));
  }

  @Benchmark
  public byte[] expression() throws Exception {
    return json(metricsGraphql.execute(expression));
  }

  @Benchmark
  public byte[] dashboard() throws Exception {
    return json(metricsGraphql.execute(dashboard));
  }

  private static byte[] json(ExecutionResult result) throws Exception {
    return JSON.writeValueAsBytes(result.toSpecification());
  }
}
