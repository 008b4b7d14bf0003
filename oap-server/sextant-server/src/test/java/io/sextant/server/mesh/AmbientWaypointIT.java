package io.sextant.server.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
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
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Istio's ambient mode over real gRPC: productpage calls reviews through the namespace's waypoint,
 * which alone logs the requests (ztunnel sends no access logs). As in SkyWalking 10.3 the topology
 * has both hops, productpage to the waypoint (its server side) and the waypoint to reviews (its
 * client side), with exact call counts, and the failed request is the waypoint's log.
 */
class AmbientWaypointIT {
  private static final Istio.Pod PRODUCTPAGE =
      new Istio.Pod("productpage-v1-6b746f74dc-9stvs", "default", "productpage", "10.0.1.1");
  private static final Istio.Pod REVIEWS =
      new Istio.Pod("reviews-v1-545db77b95-2ps7q", "default", "reviews", "10.0.1.2");
  private static final Istio.Pod WAYPOINT =
      new Istio.Pod("waypoint-7d9f8c6b5-xk2lp", "default", "waypoint", "10.0.2.5");
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);

  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());
  private static TestServer sextant;
  private static long time;

  @BeforeAll
  static void stream() throws Exception {
    sextant = SEXTANT.server();
    time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;
    List<HTTPAccessLogEntry> entries = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HTTPAccessLogEntry e = Istio.inbound(time + i, PRODUCTPAGE, REVIEWS, "/reviews/0", i == 0 ? 503 : 200, 20);
      // A waypoint's cluster names the service's VIP, and its peers are both ends.
      entries.add(e.toBuilder().setCommonProperties(e.getCommonProperties().toBuilder()
          .setUpstreamCluster("inbound-vip|9080|http|reviews.default.svc.cluster.local")
          .putFilterStateObjects("upstream_peer", REVIEWS.peer())).build());
    }
    Node waypoint = Node.newBuilder()
        .setId("waypoint~" + WAYPOINT.ip() + "~" + WAYPOINT.name() + ".default~default.svc.cluster.local")
        .setMetadata(WAYPOINT.metadata()).build();
    StreamAccessLogsMessage message = StreamAccessLogsMessage.newBuilder()
        .setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setNode(waypoint).setLogName("als"))
        .setHttpLogs(StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(entries)).build();
    AccessLogServiceGrpc.AccessLogServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(AccessLogServiceGrpc.AccessLogServiceStub.class);
    assertThat(TestServer.clientStream(stub::streamAccessLogs, List.of(message)).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  private static String duration() {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return "{start: \"" + m + "\", end: \"" + m + "\", step: MINUTE}";
  }

  @Test
  void aRequestThroughTheWaypointIsTwoHopsOfTheTopology() throws Exception {
    JsonNode topology = sextant.data("{ t: getGlobalTopology(duration: " + duration() + ", layer: \"MESH\")"
        + " { nodes { id name } calls { source target detectPoints } } }").get("t");
    Map<String, String> names = new java.util.HashMap<>();
    topology.get("nodes").forEach(n -> names.put(n.get("id").asText(), n.get("name").asText()));
    TreeSet<String> calls = new TreeSet<>();
    topology.get("calls").forEach(c -> calls.add(names.get(c.get("source").asText()) + "->"
        + names.get(c.get("target").asText()) + " " + c.get("detectPoints")));
    assertThat(calls).containsExactly("productpage.default->waypoint.default [\"SERVER\"]",
        "waypoint.default->reviews.default [\"CLIENT\"]");

    assertThat(value("service_relation_server_cpm", "serviceName: \"productpage.default\", normal: true,"
        + " destServiceName: \"waypoint.default\", destNormal: true")).isEqualTo("4");
    assertThat(value("service_relation_client_cpm", "serviceName: \"waypoint.default\", normal: true,"
        + " destServiceName: \"reviews.default\", destNormal: true")).isEqualTo("4");
    assertThat(value("service_relation_server_mtls_percent", "serviceName: \"productpage.default\", normal: true,"
        + " destServiceName: \"waypoint.default\", destNormal: true")).isEqualTo("10000");
  }

  @Test
  void theFailedRequestIsTheWaypointsLog() throws Exception {
    String waypoint = EntityIds.serviceId("waypoint.default", true);
    JsonNode logs = sextant.data("{ queryLogs(condition: {serviceId: \"" + waypoint + "\", queryDuration: "
        + duration() + ", paging: {pageNum: 1, pageSize: 10}}) { logs { serviceName endpointName content } } }")
        .get("queryLogs").get("logs");
    assertThat(logs).hasSize(1);
    assertThat(logs.get(0).get("endpointName").asText()).isEqualTo("GET:/reviews/0");
    assertThat(logs.get(0).get("content").asText()).contains("\"status\":503", "\"peer\":\"productpage.default\"");
  }

  private static String value(String metric, String entity) throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + metric + "\", entity: {" + entity
        + "}, duration: " + duration() + ") { error results { values { value } } } }").get("r");
    assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
    JsonNode v = r.get("results").get(0).get("values").get(0).get("value");
    return v.isNull() ? null : v.asText();
  }
}
