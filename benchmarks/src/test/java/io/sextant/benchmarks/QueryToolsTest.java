package io.sextant.benchmarks;

import static io.sextant.benchmarks.ToolRuns.awaitListed;
import static io.sextant.benchmarks.ToolRuns.capture;
import static io.sextant.benchmarks.ToolRuns.concat;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The query tools against a real server (memory store) over real gRPC and HTTP: the freshness probe
 * sees exactly what it sent, and every new QueryLoad mode gets good answers over a fixed window.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryToolsTest {
  private SextantServer server;
  private String grpc;
  private String http;

  @BeforeAll
  void start() throws Exception {
    int grpcPort = FreePort.any();
    int httpPort = FreePort.any();
    server = new SextantServer(SextantConfig.defaults().with(Map.of("query.warmUpSeconds", "0",
        "server.host", "127.0.0.1",
        "server.grpcPort", String.valueOf(grpcPort),
        "server.httpPort", String.valueOf(httpPort),
        "core.flushIntervalMillis", "500",
        "core.collectorId", "query-tools-test"))).start();
    grpc = "127.0.0.1:" + grpcPort;
    http = "127.0.0.1:" + httpPort;
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void freshnessProbesSeeExactlyWhatTheySent() throws Exception {
    String out = capture(() -> FreshnessProbe.execute("--target=" + grpc, "--http=" + http, "--probes=4",
        "--records=250", "--parallel=2", "--interval-ms=50", "--poll-ms=20", "--timeout=20", "--verbose=true"));
    assertThat(out).contains("every probe became visible with the exact count", "(4 probes)");
    assertThat(out).doesNotContain("FAILED");
  }

  @Test
  void everyQueryModeAnswersOverAFixedWindow() throws Exception {
    // Data in the window: one probe service with 10 calls in one minute.
    assertThat(capture(() -> FreshnessProbe.execute("--target=" + grpc, "--http=" + http, "--probes=1",
        "--records=10", "--prefix=window"))).endsWith("exit 0");
    // The probe reads its count fresh; the service itself is listed once the flusher has described it.
    awaitListed(http, "window-");
    long end = System.currentTimeMillis();
    String[] common = {"--http=" + http, "--duration=3", "--warmup=0", "--minutes=30", "--end=" + end};

    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=global-topology,topology"))))
        .contains("first global-topology answer:", "first topology answer:", "all requests succeeded")
        .containsPattern("\\nglobal-topology +[0-9,]+ +0 ")
        .endsWith("exit 0");
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=expression", "--expression=service_cpm"))))
        .contains("first service_cpm answer: type TIME_SERIES_VALUES, 1 series, 30 values, 1 of them present",
            "all requests succeeded")
        .endsWith("exit 0");
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=dashboard", "--dashboard-size=4"))))
        .containsPattern("\\ndashboard-4 +[0-9,]+ +0 ")
        .endsWith("exit 0");
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=version"))))
        .containsPattern("\\nversion +[0-9,]+ +0 ")
        .endsWith("exit 0");
  }

  @Test
  void badOptionsAreRefused() throws Exception {
    String[] common = {"--http=" + http, "--duration=1", "--warmup=0"};
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=dashboard", "--dashboard-size=9"))))
        .endsWith("exit 2");
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=expression", "--service=no-such-service"))))
        .endsWith("exit 2");
    assertThat(capture(() -> QueryLoad.execute(concat(common, "--queries=versions")))).endsWith("exit 2");
    assertThat(capture(() -> FreshnessProbe.execute("--http=" + http, "--records=0"))).endsWith("exit 2");
  }
}
