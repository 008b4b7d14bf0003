package io.sextant.server.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeSet;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Over real gRPC: one service reports an id in every path and a new pod in every call, beside a
 * well-behaved neighbour, with an aggregator bound the explosion alone would fill. The noisy
 * service's excess folds into its {@code <overflow>} endpoint and instance (counted, by name, in
 * /metrics); every call of both services is accepted and counted exactly.
 */
class CardinalityExplosionIT {
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of("core.maxEndpointsPerService", "100",
      "core.maxInstancesPerService", "50", "core.maxAccumulators", "2000"));

  @Test
  void aServiceThatExplodesItsEndpointsAndPodsCostsItsNeighboursNothing() throws Exception {
    TestServer sextant = SEXTANT.server();
    long time = System.currentTimeMillis();
    Bookinfo traffic = new Bookinfo(time);
    for (int i = 0; i < 3000; i++) {
      traffic.calls("caller", "caller-0", "noisy", "noisy-" + i, "GET:/orders/" + i, 1, 5, 0, 0, Protocol.HTTP,
          false, true);
    }
    traffic.calls("caller", "caller-0", "quiet", "quiet-0", "GET:/home", 500, 5, 0, 0, Protocol.HTTP, false, true);
    assertThat(sextant.stream(traffic.messages(100))).isEqualTo(Status.OK);
    sextant.flush();

    String window = "{start: \"" + minute(time - 60_000) + "\", end: \"" + minute(time + 60_000) + "\", step: MINUTE}";
    assertThat(calls(sextant, "noisy", window)).isEqualTo(3000);
    assertThat(calls(sextant, "quiet", window)).isEqualTo(500);
    String noisy = serviceId(sextant, "noisy");
    assertThat(endpoints(sextant, noisy, "GET:/orders/")).hasSize(100).contains("GET:/orders/0", "GET:/orders/99")
        .doesNotContain("GET:/orders/100");
    assertThat(endpoints(sextant, noisy, "overflow")).containsExactly("<overflow>");
    String metrics = sextant.get("/metrics");
    assertThat(metrics).contains("sextant_entities_folded_total{kind=\"endpoint\",service=\"noisy\"} 2900.0")
        .contains("sextant_entities_folded_total{kind=\"instance\",service=\"noisy\"} 2950.0")
        .contains("sextant_records_rejected_total{reason=\"overloaded\"} 0.0");
  }

  private static long calls(TestServer sextant, String service, String duration) throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"service_cpm\", entity: {serviceName: \"" + service
        + "\", normal: true}, duration: " + duration + ") { error results { values { value } } } }").get("r");
    long sum = 0;
    for (JsonNode v : r.get("results").get(0).get("values")) {
      sum += v.get("value").isNull() ? 0 : v.get("value").asLong();
    }
    return sum;
  }

  private static TreeSet<String> endpoints(TestServer sextant, String serviceId, String keyword) throws Exception {
    TreeSet<String> names = new TreeSet<>();
    sextant.data("{ e: findEndpoint(keyword: \"" + keyword + "\", serviceId: \"" + serviceId + "\", limit: 1000) "
        + "{ name } }").get("e").forEach(e -> names.add(e.get("name").asText()));
    return names;
  }

  private static String serviceId(TestServer sextant, String name) throws Exception {
    for (JsonNode s : sextant.data("{ s: listServices(layer: \"MESH\") { id name } }").get("s")) {
      if (s.get("name").asText().equals(name)) {
        return s.get("id").asText();
      }
    }
    throw new AssertionError("service " + name + " not listed");
  }

  private static String minute(long millis) {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneId.of("UTC"))
        .format(Instant.ofEpochMilli(millis));
  }
}
