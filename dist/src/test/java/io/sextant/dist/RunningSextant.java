package io.sextant.dist;

import io.sextant.testkit.net.FreePort;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A distribution started and ready, with the clients that talk to it. Ports come from the
 * environment when it names them (the chart's does), else free ones are chosen; no balancer waits
 * on these tests' drains, so the drain's readiness period is 0 unless the environment says more.
 */
record RunningSextant(LaunchedDistribution process, Clients clients) implements AutoCloseable {
  static RunningSextant start(Path home, Map<String, String> env, Duration readyWithin) throws Exception {
    Map<String, String> all = new HashMap<>(env);
    int grpc = Integer.parseInt(all.computeIfAbsent("SEXTANT_SERVER_GRPC_PORT", k -> port()));
    int http = Integer.parseInt(all.computeIfAbsent("SEXTANT_SERVER_HTTP_PORT", k -> port()));
    all.putIfAbsent("SEXTANT_SERVER_DRAIN_READINESS_SECONDS", "0");
    // The query warm-up would take a core for its seconds after each start; ShippedModesIT runs it.
    all.putIfAbsent("SEXTANT_QUERY_WARM_UP_SECONDS", "0");
    LaunchedDistribution process = LaunchedDistribution.start(home, all);
    try {
      process.awaitReady(http, readyWithin);
    } catch (AssertionError | Exception e) {
      process.close();
      throw e;
    }
    return new RunningSextant(process, new Clients(grpc, http));
  }

  static String port() {
    return String.valueOf(FreePort.any());
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }
}
