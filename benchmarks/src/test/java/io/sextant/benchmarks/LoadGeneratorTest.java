package io.sextant.benchmarks;

import static io.sextant.benchmarks.ToolRuns.capture;
import static io.sextant.benchmarks.ToolRuns.concat;
import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.WebClient;
import io.grpc.Status;
import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;

/**
 * The load generator's two clients against an in-process server over real sockets: what they send
 * (mesh, Envoy's and Rover's access logs) is exactly what the server counts, streams they end are
 * answered OK, and the chunked client reports the status a server ends a call with.
 */
class LoadGeneratorTest {
  private static final String[] SHORT_RUN = {"--inprocess=true", "--duration=2", "--rate=4000", "--report=1"};

  @Test
  void bothClientsSendExactlyWhatTheServerCounts() throws Exception {
    for (String client : new String[] {"chunked", "stub"}) {
      String out = capture(() -> LoadGenerator.execute(concat(SHORT_RUN, "--client=" + client, "--batch=1")));
      assertThat(out).as(client)
          .contains("--client=" + client, "processed == sent   YES", "0 ended early by the server")
          .endsWith("exit 0");
    }
  }

  @Test
  void anUnknownClientIsRefused() throws Exception {
    assertThat(capture(() -> LoadGenerator.execute(concat(SHORT_RUN, "--client=netty")))).endsWith("exit 2");
  }

  @Test
  void chunkedAccessLogStreamsRotateCleanly() throws Exception {
    String out = capture(() -> LoadGenerator.execute(concat(SHORT_RUN, "--protocol=als", "--batch=10",
        "--rotate-bytes=50000")));
    assertThat(out).contains("processed == sent   YES", "0 of them not OK").doesNotContain(" 0 rotated")
        .endsWith("exit 0");
  }

  /**
   * Rover's access log: every kernel and HTTP log accepted, none refused, through pool swaps and
   * stream rotations (a stream must start with a connection's first message, or its records have
   * no connection and are refused, and a rotated stream would end INVALID_ARGUMENT).
   */
  @Test
  void roverStreamsAreAcceptedWhole() throws Exception {
    for (String client : new String[] {"chunked", "stub"}) {
      String out = capture(() -> LoadGenerator.execute(concat(SHORT_RUN, "--protocol=rover", "--batch=2",
          "--client=" + client, "--rotate-bytes=50000")));
      assertThat(out).as(client)
          .contains("receiver ebpf_access_log", "processed == sent   YES", "0 ended early by the server",
              "0 of them not OK")
          .doesNotContain(" 0 rotated")
          .endsWith("exit 0");
    }
  }

  @Test
  void chunkedCallsReportTheServersStatus() throws Exception {
    int grpcPort = FreePort.any();
    SextantServer server = new SextantServer(SextantConfig.defaults().with(Map.of("query.warmUpSeconds", "0",
        "server.host", "127.0.0.1", "server.grpcPort", String.valueOf(grpcPort),
        "server.httpPort", String.valueOf(FreePort.any())))).start();
    try {
      WebClient client = WebClient.builder("http://127.0.0.1:" + grpcPort).responseTimeoutMillis(0).build();
      ClientStream<ServiceMeshMetrics> call =
          ChunkedClientStream.<ServiceMeshMetrics>opener(client, "no.such.Service/collect").open(() -> {});
      call.send(ServiceMeshMetrics.getDefaultInstance(), MessagePool.frame(ServiceMeshMetrics.getDefaultInstance()));
      call.complete();
      Status status = call.done().get(10, TimeUnit.SECONDS);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
      assertThat(status.getDescription()).contains("no.such.Service/collect");
    } finally {
      server.close();
    }
  }
}
