package io.sextant.server.mesh;

import static io.sextant.server.testing.EnvoyProxyTraffic.counter;
import static io.sextant.server.testing.EnvoyProxyTraffic.gauge;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.Istio;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Envoy's metrics service: a sidecar's stat snapshots become the MESH_DP envoy_* metrics sent. */
class EnvoyMetricsIT {
  private static final Istio.Pod PRODUCTPAGE =
      new Istio.Pod("productpage-v1-6b746f74dc-9stvs", "default", "productpage", "10.0.1.1");
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());
  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    sextant = SEXTANT.server();
    time = (System.currentTimeMillis() / 60_000 - 2) * 60_000 + 1000;
    // Three snapshots 10 s apart, as Envoy flushes them: heap 100, 200, 300 MB; rq totals grow.
    List<StreamMetricsMessage> messages = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder();
      if (i == 0) {
        m.setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(PRODUCTPAGE.sidecar()));
      }
      long t = time + i * 10_000L;
      m.addEnvoyMetrics(gauge("server.memory_heap_size", (i + 1) * 100_000_000.0, t));
      m.addEnvoyMetrics(gauge("server.concurrency", 2, t));
      m.addEnvoyMetrics(gauge("cluster.outbound|9080|v1|reviews.default.svc.cluster.local.upstream_rq_active",
          3 + i, t));
      m.addEnvoyMetrics(gauge("cluster.outbound|9080|v2|reviews.default.svc.cluster.local.upstream_rq_active", 1, t));
      m.addEnvoyMetrics(counter("cluster.outbound|9080|v1|reviews.default.svc.cluster.local.upstream_rq_total",
          1000 + 50 * i, t));
      m.addEnvoyMetrics(counter("cluster.outbound|9080||details.default.svc.cluster.local.upstream_rq_total",
          10 + 7 * i, t));
      m.addEnvoyMetrics(gauge("cluster.xds-grpc.upstream_rq_active", 1, t)); // Envoy's own cluster: not charted
      // A cluster of its own service, called, and one of a service never called: neither is an edge.
      m.addEnvoyMetrics(counter("cluster.outbound|9080||productpage.default.svc.cluster.local.upstream_rq_total",
          5 + 5 * i, t));
      m.addEnvoyMetrics(counter("cluster.outbound|9080||ratings.default.svc.cluster.local.upstream_rq_total", 0, t));
      m.addEnvoyMetrics(gauge("cluster.outbound|9080||ratings.default.svc.cluster.local.upstream_rq_active", 0, t));
      messages.add(m.build());
    }
    assertThat(send(messages).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  private static Status send(List<StreamMetricsMessage> messages) throws Exception {
    MetricsServiceGrpc.MetricsServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MetricsServiceGrpc.MetricsServiceStub.class);
    return TestServer.clientStream(stub::streamMetrics, messages);
  }

  private static Map<String, String> exec(String expression, String entity) throws Exception {
    String m = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(time));
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + expression + "\", entity: {" + entity
        + "}, duration: {start: \"" + m + "\", end: \"" + m + "\", step: MINUTE})"
        + " { error results { metric { labels { key value } } values { value } } } }")
        .get("r");
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    Map<String, String> out = new TreeMap<>();
    for (JsonNode s : r.get("results")) {
      String label = s.get("metric").get("labels").isEmpty() ? ""
          : s.get("metric").get("labels").get(0).get("value").asText();
      JsonNode v = s.get("values").get(0).get("value");
      out.put(label, v.isNull() ? null : v.asText());
    }
    return out;
  }

  @Test
  void theDataPlaneIsAServiceOfLayerMeshDp() throws Exception {
    JsonNode services = sextant.data("{ listServices(layer: \"MESH_DP\") { name } }").get("listServices");
    List<String> names = new ArrayList<>();
    services.forEach(s -> names.add(s.get("name").asText()));
    assertThat(names).contains("productpage.default");
    JsonNode instances = sextant.data("{ listInstances(duration: {start: \""
        + DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(time))
        + "\", end: \""
        + DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(time))
        + "\", step: MINUTE}, serviceId: \"" + EntityIds.serviceId("productpage.default", true) + "\") { name } }")
        .get("listInstances");
    assertThat(instances.get(0).get("name").asText()).isEqualTo(PRODUCTPAGE.name());
  }

  @Test
  void instanceMetricsAreTheValuesSent() throws Exception {
    String instance = "serviceName: \"productpage.default\", serviceInstanceName: \"" + PRODUCTPAGE.name() + "\"";
    assertThat(exec("envoy_heap_memory_used", instance)).containsExactly(Map.entry("", "200000000"));
    assertThat(exec("envoy_worker_threads", instance)).containsExactly(Map.entry("", "2"));
    // Per upstream cluster (v1 and v2 subsets of reviews summed): (4+5+6)/3.
    assertThat(exec("envoy_cluster_up_rq_active", instance))
        .containsExactly(Map.entry("ratings.default", "0"), Map.entry("reviews.default", "5"));
    // Counters as their increase: reviews 1000 → 1100, details 10 → 24.
    assertThat(exec("envoy_cluster_up_rq_incr", instance)).containsExactly(Map.entry("details.default", "14"),
        Map.entry("productpage.default", "10"), Map.entry("ratings.default", "0"), Map.entry("reviews.default", "100"));
    assertThat(exec("envoy_cluster_up_rq_incr{cluster_name='details.default'}", instance))
        .containsExactly(Map.entry("details.default", "14"));
  }

  @Test
  void relationMetricsPointAtTheUpstreamService() throws Exception {
    assertThat(exec("envoy_sr_cluster_up_rq_active",
        "serviceName: \"productpage.default\", destServiceName: \"reviews.default\""))
        .containsExactly(Map.entry("", "5"));
    assertThat(exec("envoy_sr_cluster_up_rq_incr",
        "serviceName: \"productpage.default\", destServiceName: \"details.default\""))
        .containsExactly(Map.entry("", "14"));
  }

  /** Edges only where calls went: no self-loop (booster-ui drew it at NaN), none to an idle cluster. */
  @Test
  void noEdgeToItselfNorToAClusterNeverCalled() throws Exception {
    String m = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(time));
    JsonNode calls = sextant.data("{ t: getGlobalTopology(layer: \"MESH_DP\", duration: {start: \"" + m
        + "\", end: \"" + m + "\", step: MINUTE}) { nodes { id name } calls { source target } } }").get("t");
    Map<String, String> names = new TreeMap<>();
    calls.get("nodes").forEach(n -> names.put(n.get("id").asText(), n.get("name").asText()));
    List<String> edges = new ArrayList<>();
    calls.get("calls").forEach(c -> edges.add(names.get(c.get("source").asText()) + " -> "
        + names.get(c.get("target").asText())));
    assertThat(edges).containsExactlyInAnyOrder("productpage.default -> reviews.default",
        "productpage.default -> details.default");
    assertThat(exec("envoy_sr_cluster_up_rq_incr",
        "serviceName: \"productpage.default\", destServiceName: \"ratings.default\"").get("")).isNull();
  }
}
