package io.sextant.server.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.CoreConfig;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.server.config.Plugins;
import io.sextant.server.config.SextantConfig;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ingest warm-up sends the receivers' typical traffic over real gRPC to scratch receivers
 * after the collector reports ready (it never holds readiness): every record it sends is taken by
 * the scratch aggregator (the traffic is valid and attributed, so it runs the path real traffic
 * takes), and none reaches the collector's own aggregator, storage or counters.
 */
class IngestWarmUpTest {
  private static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

  @Test
  void everyRecordSentIsTakenByTheScratchAggregatorUntilTheRoundsSettle() {
    // The rounds alone: how soon a busy test JVM's compiler is quiet is not the test's to know.
    IngestWarmUp.Result result =
        warmUp(SextantConfig.defaults(), Duration.ofSeconds(60), JitCompiler.NOT_WATCHED).run();
    assertThat(result.receivers()).as("the enabled receivers with traffic")
        .containsExactlyInAnyOrder("mesh", "als", "envoyMetrics");
    assertThat(result.rounds()).isGreaterThan(1);
    assertThat(result.sent()).as("mesh, ALS and Envoy metrics records").isPositive();
    assertThat(result.accepted()).as("taken by the scratch aggregator").isEqualTo(result.sent());
    assertThat(result.stoppedAs()).isEqualTo("its rounds stopped getting faster");
  }

  @Test
  void aCompilerThatNeverSettlesKeepsTheWarmUpGoingToItsBudget() {
    JitCompiler busy = TestCompilers.of(() -> 0, () -> 1);
    long started = System.nanoTime();
    IngestWarmUp.Result result = warmUp(SextantConfig.defaults(), Duration.ofSeconds(5), busy).run();
    assertThat(result.stoppedAs()).isEqualTo("its 5 s were spent");
    assertThat(result.accepted()).isEqualTo(result.sent());
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aRoundTheReceiversRefuseEndsTheWarmUpAtOnce() {
    // Every mesh message the warm-up sends has more records than this allows: INVALID_ARGUMENT.
    SextantConfig refusing = SextantConfig.defaults().with(Map.of("receiver.mesh.maxRecordsPerMessage", "1"));
    long started = System.nanoTime();
    assertThat(warmUp(refusing, Duration.ofSeconds(60), JitCompiler.NOT_WATCHED).run().rounds()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void readinessDoesNotWaitForItAndNothingItSendsReachesTheCollector() throws Exception {
    try (TestServer sextant = new TestServer(Map.of("server.ingestWarmUpSeconds", "5"))) {
      // A warm-up lasts at least the plateau (3 s with no round faster): it is still running here.
      assertThat(sextant.get("/readyz")).isEqualTo("ready");
      String metrics = Poll.until("the warm-up's records", Duration.ofSeconds(30), () -> sextant.get("/metrics"),
          m -> value(m, "sextant_ingest_warm_up_records_total") > 0);
      assertThat(value(metrics, "sextant_records_accepted_total{kind=\"call\"}")).as("the collector's own count")
          .isZero();
      assertThat(sextant.data("{ listServices(layer: \"MESH\") { name } }").toString()).doesNotContain("warm-up");
      assertThat(sextant.stream(Bookinfo.standard(System.currentTimeMillis()).messages(5)).isOk()).isTrue();
    }
  }

  private static IngestWarmUp warmUp(SextantConfig config, Duration budget, JitCompiler compiler) {
    CoreConfig core = CoreConfig.load(config);
    TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
    return new IngestWarmUp(Plugins.RECEIVERS, config,
        SextantServer.aggregators(core, MetricFamilies.catalog(core.apdexThresholdMillis()), buckets),
        config.integer("server.maxGrpcMessageBytes"), budget, compiler, REGISTRY);
  }

  private static double value(String metrics, String series) {
    String line = metrics.lines().filter(l -> l.startsWith(series + " ")).findFirst().orElseThrow(
        () -> new AssertionError("no " + series + " in /metrics"));
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
