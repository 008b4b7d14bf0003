package io.sextant.server.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The warm-up after a start runs the dashboards' queries for its seconds and stops: every request
 * valid against the schema (no errors), and the server answers as usual meanwhile.
 */
class QueryWarmUpTest {
  @Test
  void theWarmUpRunsTheDashboardQueriesWithoutErrorsAndStops() throws Exception {
    try (TestServer sextant = new TestServer(Map.of("query.warmUpSeconds", "1"))) {
      assertThat(sextant.stream(Bookinfo.standard(System.currentTimeMillis()).messages(5)).isOk()).isTrue();
      assertThat(sextant.get("/readyz")).isEqualTo("ready");
      Thread.sleep(1_500);
      double made = metric(sextant, "sextant_query_warm_up_requests_total");
      assertThat(made).as("warm-up requests").isPositive();
      assertThat(metric(sextant, "sextant_query_warm_up_errors_total")).as("answered with errors").isZero();
      Thread.sleep(300);
      assertThat(metric(sextant, "sextant_query_warm_up_requests_total")).as("stopped after its seconds")
          .isEqualTo(made);
    }
  }

  private static double metric(TestServer sextant, String name) throws Exception {
    String line = sextant.get("/metrics").lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
