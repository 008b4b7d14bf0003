package io.sextant.server.rover;

import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.accept;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.close;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connect;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connection;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.http;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.ip;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.node;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.pod;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.read;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.write;
import static org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod.Get;
import static org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod.Post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.receiver.ebpf.accesslog.RoverAccessLog;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolType;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SkyWalking Rover's eBPF access log end to end: bookinfo without a mesh, as two Rovers see it
 * (node 1 watches productpage, node 2 details, reviews and ratings), in streams shaped as Rover 0.7
 * sends them over real gRPC, read back through real HTTP GraphQL with the queries of SkyWalking's own
 * end-to-end case for the access log ({@code test/e2e-v2/cases/profiling/ebpf/access_log}: service,
 * instance and endpoint lists, the K8S_SERVICE topology, the instance topology, and {@code ebpf.oal}
 * metrics of every scope), with exact counts: productpage calls details three times (200, 200, 404)
 * over HTTP/1.1 and reviews twice (200, 500) over HTTP/2; reviews calls ratings once; productpage's
 * connection to an address nobody can name fails; reviews' traffic with itself is dropped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RoverAccessLogEndToEnd {
  private static final DetectPoint CLIENT = DetectPoint.client;
  private static final DetectPoint SERVER = DetectPoint.server;
  /** Nanoseconds from a node's boot to {@link #time}: the nodes booted an hour before. */
  private static final long T = 3_600_000_000_000L;

  private final String ns = "ns" + UUID.randomUUID().toString().substring(0, 6);
  private final String productpage = "productpage." + ns;
  private final String details = "details." + ns;
  private final String reviews = "reviews." + ns;
  private final String ratings = "ratings." + ns;
  private final long time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1_000;
  private final long boot = time / 1000 - 3600;
  private TestServer sextant;
  private Status node1;
  private Status node2;

  protected abstract Map<String, String> storage();

  @BeforeAll
  void report() throws Exception {
    sextant = new TestServer(storage());
    EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub stub = GrpcClients
        .builder("http://127.0.0.1:" + sextant.grpcPort).build(EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub.class);
    AccessLogConnection toDetails = connection(pod(productpage, "productpage-1", 41000),
        pod(details, "details-1", 9080), CLIENT, AccessLogProtocolType.HTTP_1, false);
    AccessLogConnection toReviews = connection(pod(productpage, "productpage-1", 41001),
        pod(reviews, "reviews-1", 9080), CLIENT, AccessLogProtocolType.HTTP_2, false);
    AccessLogConnection toNobody = connection(pod(productpage, "productpage-1", 41002), ip("203.0.113.9", 443),
        CLIENT, AccessLogProtocolType.TCP, false);
    node1 = RoverAccessLog.send(stub, List.of(
        message(toDetails).setNode(node(boot, "")).addKernelLogs(connect(T, T + 120_000, true))
            .addKernelLogs(write(T + 200_000, T + 260_000, 1000, 2, 1))
            .addKernelLogs(read(T + 3_000_000, T + 3_040_000, 500, 1)).build(),
        exchange(Get, "/details/0", 200, 4_000_000),
        exchange(Get, "/details/0", 200, 6_000_000),
        exchange(Get, "/details/0", 404, 2_000_000),
        EBPFAccessLogMessage.newBuilder().addKernelLogs(close(T + 9_000_000, T + 9_010_000, true)).build(),
        message(toReviews).setProtocolLog(http(Get, "/reviews/0", 200, T, T + 30_000_000)).build(),
        exchange(Post, "/reviews/1", 500, 50_000_000),
        message(toNobody).addKernelLogs(connect(T, T + 3_000_000_000L, false)).build()));
    AccessLogConnection fromProductpage = connection(pod(details, "details-1", 9080),
        pod(productpage, "productpage-1", 41000), SERVER, AccessLogProtocolType.HTTP_1, false);
    AccessLogConnection reviewsServes = connection(pod(reviews, "reviews-1", 9080),
        pod(productpage, "productpage-1", 41001), SERVER, AccessLogProtocolType.HTTP_2, false);
    AccessLogConnection toRatings = connection(pod(reviews, "reviews-1", 42000), pod(ratings, "ratings-1", 9080),
        CLIENT, AccessLogProtocolType.HTTP_1, false);
    AccessLogConnection ratingsServes = connection(pod(ratings, "ratings-1", 9080),
        pod(reviews, "reviews-1", 42000), SERVER, AccessLogProtocolType.HTTP_1, false);
    AccessLogConnection toItself = connection(pod(reviews, "reviews-1", 42001), pod(reviews, "reviews-2", 9080),
        CLIENT, AccessLogProtocolType.TCP, false);
    node2 = RoverAccessLog.send(stub, List.of(
        message(fromProductpage).setNode(node(boot, "")).addKernelLogs(accept(T + 100_000, T + 110_000))
            .addKernelLogs(read(T + 2_900_000, T + 2_930_000, 1000, 2))
            .addKernelLogs(write(T + 3_000_000, T + 3_020_000, 500, 1, 0)).build(),
        exchange(Get, "/details/0", 200, 3_000_000),
        exchange(Get, "/details/0", 200, 5_000_000),
        exchange(Get, "/details/0", 404, 1_000_000),
        message(reviewsServes).addKernelLogs(accept(T, T + 20_000))
            .setProtocolLog(http(Get, "/reviews/0", 200, T, T + 28_000_000)).build(),
        exchange(Post, "/reviews/1", 500, 48_000_000),
        message(toRatings).addKernelLogs(connect(T, T + 80_000, true))
            .setProtocolLog(http(Get, "/ratings/0", 200, T, T + 9_000_000)).build(),
        message(ratingsServes).addKernelLogs(accept(T, T + 10_000))
            .setProtocolLog(http(Get, "/ratings/0", 200, T, T + 7_000_000)).build(),
        message(toItself).addKernelLogs(connect(T, T + 1000, true)).build()));
    sextant.flush();
  }

  @AfterAll
  void stop() {
    sextant.close();
  }

  private static EBPFAccessLogMessage.Builder message(AccessLogConnection connection) {
    return EBPFAccessLogMessage.newBuilder().setConnection(connection);
  }

  /** One decoded HTTP exchange on the current connection, taking {@code nanos}. */
  private static EBPFAccessLogMessage exchange(
      org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod method, String path,
      int status, long nanos) {
    return EBPFAccessLogMessage.newBuilder().setProtocolLog(http(method, path, status, T, T + nanos)).build();
  }

  @Test
  void bothStreamsAreTakenWhole() {
    assertThat(node1.getCode()).isEqualTo(Status.Code.OK);
    assertThat(node2.getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void everyWatchedServiceIsListedInTheK8sServiceLayer() throws Exception {
    JsonNode services = sextant.data("{ s: listServices(layer: \"K8S_SERVICE\") { id name shortName normal layers } }")
        .get("s");
    List<String> ours = new ArrayList<>();
    for (JsonNode s : services) {
      if (s.get("name").asText().endsWith(ns)) {
        assertThat(s.get("id").asText()).isEqualTo(EntityIds.serviceId(s.get("name").asText(), true));
        assertThat(s.get("layers").toString()).isEqualTo("[\"K8S_SERVICE\"]");
        ours.add(s.get("name").asText());
      }
    }
    // The unnamed peer is a topology node, never a listed service.
    assertThat(ours).containsExactlyInAnyOrder(productpage, details, reviews, ratings);
  }

  @Test
  void podsAreInstancesAndServerSidePathsAreEndpoints() throws Exception {
    JsonNode instances = sextant.data("{ i: listInstances(duration: " + duration() + ", serviceId: \""
        + id(productpage) + "\") { id name language instanceUUID attributes { name } } }").get("i");
    assertThat(instances).hasSize(1);
    assertThat(instances.get(0).get("name").asText()).isEqualTo("productpage-1");
    assertThat(instances.get(0).get("language").asText()).isEqualTo("UNKNOWN");
    JsonNode endpoints = sextant.data("{ e: findEndpoint(keyword: \"\", serviceId: \"" + id(details)
        + "\", limit: 100, duration: " + duration() + ") { id name } }").get("e");
    assertThat(endpoints).extracting(e -> e.get("id").asText() + " " + e.get("name").asText())
        .containsExactly(EntityIds.instanceId(id(details), "GET:/details/0") + " GET:/details/0");
    JsonNode reviewsEndpoints = sextant.data("{ e: findEndpoint(keyword: \"\", serviceId: \"" + id(reviews)
        + "\", limit: 100, duration: " + duration() + ") { name } }").get("e");
    assertThat(reviewsEndpoints).extracting(e -> e.get("name").asText())
        .containsExactlyInAnyOrder("GET:/reviews/0", "POST:/reviews/1");
  }

  @Test
  void theLayerTopologyHasEveryCallWithBothSidesAndItsProtocol() throws Exception {
    JsonNode t = sextant.data("{ t: getGlobalTopology(duration: " + duration() + ", layer: \"K8S_SERVICE\") {"
        + " nodes { id name type isReal } calls { id source target detectPoints sourceComponents targetComponents }"
        + " } }").get("t");
    List<String> calls = new ArrayList<>();
    for (JsonNode c : t.get("calls")) {
      if (c.get("source").asText().equals(id(productpage)) || c.get("source").asText().equals(id(reviews))) {
        calls.add(c.get("id").asText() + " " + c.get("detectPoints") + " " + c.get("sourceComponents") + " "
            + c.get("targetComponents"));
      }
    }
    String unknown = EntityIds.serviceId("Unknown", true);
    assertThat(calls).containsExactlyInAnyOrder(
        id(productpage) + "-" + id(details) + " [\"CLIENT\",\"SERVER\"] [\"http\"] [\"http\"]",
        id(productpage) + "-" + id(reviews) + " [\"CLIENT\",\"SERVER\"] [\"http\"] [\"http\"]",
        id(reviews) + "-" + id(ratings) + " [\"CLIENT\",\"SERVER\"] [\"http\"] [\"http\"]",
        id(productpage) + "-" + unknown + " [\"CLIENT\"] [\"tcp\"] []");
    List<String> nodes = new ArrayList<>();
    for (JsonNode n : t.get("nodes")) {
      if (n.get("name").asText().endsWith(ns)) {
        nodes.add(n.get("name").asText() + " " + n.get("type").asText() + " " + n.get("isReal").asBoolean());
      }
    }
    // A called service takes the type its server side reported; productpage is only ever a caller.
    assertThat(nodes).contains(details + " http true", reviews + " http true", ratings + " http true");
  }

  @Test
  void theInstanceTopologyJoinsTheTwoPods() throws Exception {
    JsonNode t = sextant.data("{ t: getServiceInstanceTopology(clientServiceId: \"" + id(productpage)
        + "\", serverServiceId: \"" + id(details) + "\", duration: " + duration()
        + ") { nodes { name serviceName isReal } calls { detectPoints } } }").get("t");
    assertThat(t.get("nodes")).extracting(n -> n.get("serviceName").asText() + "/" + n.get("name").asText())
        .containsExactlyInAnyOrder(productpage + "/productpage-1", details + "/details-1");
    assertThat(t.get("calls")).extracting(c -> c.get("detectPoints").toString())
        .containsExactly("[\"CLIENT\",\"SERVER\"]");
  }

  @Test
  void serviceMetricsCountEachServerSideExchangeAndEachKernelOperation() throws Exception {
    String pp = service(productpage);
    String d = service(details);
    String r = service(reviews);
    assertThat(value("kubernetes_service_http_call_cpm", d)).isEqualTo("3");
    assertThat(value("kubernetes_service_http_status_2xx_cpm", d)).isEqualTo("2");
    assertThat(value("kubernetes_service_http_status_4xx_cpm", d)).isEqualTo("1");
    assertThat(value("kubernetes_service_http_status_5xx_cpm", d)).isEqualTo("null");
    assertThat(value("kubernetes_service_http_call_successful_rate", d)).isEqualTo("10000");
    assertThat(value("kubernetes_service_http_call_time", d)).isEqualTo("3"); // (3 + 5 + 1) / 3 ms
    assertThat(value("kubernetes_service_http_avg_resp_body_size", d)).isEqualTo("1000");
    assertThat(value("kubernetes_service_http_call_cpm", r)).isEqualTo("2");
    assertThat(value("kubernetes_service_http_status_5xx_cpm", r)).isEqualTo("1");
    assertThat(value("kubernetes_service_http_call_successful_rate", r)).isEqualTo("5000");
    // productpage only calls: no server-side HTTP metrics, but its kernel operations count.
    assertThat(value("kubernetes_service_http_call_cpm", pp)).isEqualTo("null");
    assertThat(value("kubernetes_service_connect_cpm", pp)).isEqualTo("2");
    assertThat(value("kubernetes_service_connect_success_cpm", pp)).isEqualTo("1");
    assertThat(value("kubernetes_service_write_cpm", pp)).isEqualTo("1");
    assertThat(value("kubernetes_service_write_package_cpm", pp)).isEqualTo("2");
    assertThat(value("kubernetes_service_write_retrains_package_cpm", pp)).isEqualTo("1");
    assertThat(value("kubernetes_service_write_package_size", pp)).isEqualTo("1000");
    assertThat(value("kubernetes_service_write_time", pp)).isEqualTo("60000"); // ns
    assertThat(value("kubernetes_service_read_package_size", pp)).isEqualTo("500");
    assertThat(value("kubernetes_service_close_cpm", pp)).isEqualTo("1");
    assertThat(value("kubernetes_service_accept_cpm", d)).isEqualTo("1");
    assertThat(value("kubernetes_service_read_cpm", d)).isEqualTo("1");
    assertThat(answer("kubernetes_service_percentile{p='50'}", d)).containsExactly("{p=50}=[3]");
  }

  @Test
  void instanceAndEndpointMetricsAreThePodsAndThePaths() throws Exception {
    String pod = instance(details, "details-1");
    assertThat(value("kubernetes_service_instance_http_call_cpm", pod)).isEqualTo("3");
    assertThat(value("kubernetes_service_instance_accept_cpm", pod)).isEqualTo("1");
    String path = "serviceName: \"" + details + "\", normal: true, endpointName: \"GET:/details/0\"";
    assertThat(value("kubernetes_service_endpoint_call_cpm", path)).isEqualTo("3");
    assertThat(value("kubernetes_service_endpoint_http_status_4xx_cpm", path)).isEqualTo("1");
    assertThat(value("kubernetes_service_endpoint_call_successful_rate", path)).isEqualTo("10000");
    String failing = "serviceName: \"" + reviews + "\", normal: true, endpointName: \"POST:/reviews/1\"";
    assertThat(value("kubernetes_service_endpoint_http_status_5xx_cpm", failing)).isEqualTo("1");
    assertThat(value("kubernetes_service_endpoint_call_successful_rate", failing)).isEqualTo("0");
  }

  @Test
  void topListsRankAServicesPodsAndPathsWithTheirOwners() throws Exception {
    // SkyWalking's e2e case: top_n of an instance and of an endpoint metric for a service.
    JsonNode pods = topN("top_n(kubernetes_service_instance_write_l4_time,10,des)", service(details));
    assertThat(pods.get("type").asText()).isEqualTo("SORTED_LIST");
    assertThat(pods.findValuesAsText("serviceInstanceName")).containsExactly("details-1");
    JsonNode paths = topN("top_n(kubernetes_service_endpoint_call_time,10,des)", service(reviews));
    assertThat(paths.findValuesAsText("endpointName")).containsExactly("POST:/reviews/1", "GET:/reviews/0");
    assertThat(paths.findValuesAsText("value")).containsExactly("48", "28");
  }

  private JsonNode topN(String expression, String entity) throws Exception {
    return sextant.data("{ r: execExpression(expression: \"" + expression + "\", entity: {" + entity
        + "}, duration: " + duration() + ") { type error results { values { id value owner { scope serviceName"
        + " serviceInstanceName endpointName } } } } }").get("r");
  }

  @Test
  void relationMetricsHaveEachSideThroughItsOwnNames() throws Exception {
    String rel = relation(productpage, details);
    assertThat(value("kubernetes_service_relation_client_http_call_cpm", rel)).isEqualTo("3");
    assertThat(value("kubernetes_service_relation_server_http_call_cpm", rel)).isEqualTo("3");
    assertThat(value("kubernetes_service_relation_server_http_status_4xx_cpm", rel)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_client_http_call_time", rel)).isEqualTo("4"); // (4 + 6 + 2) / 3
    assertThat(value("kubernetes_service_relation_connect_cpm", rel)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_accept_cpm", rel)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_client_write_cpm", rel)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_client_write_retrains_package_cpm", rel)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_server_read_package_size", rel)).isEqualTo("1000");
    String pods = rel + ", serviceInstanceName: \"productpage-1\", destServiceInstanceName: \"details-1\"";
    assertThat(value("kubernetes_service_instance_relation_client_http_call_cpm", pods)).isEqualTo("3");
    assertThat(value("kubernetes_service_instance_relation_connect_cpm", pods)).isEqualTo("1");
    String nobody = relation(productpage, "Unknown");
    assertThat(value("kubernetes_service_relation_connect_cpm", nobody)).isEqualTo("1");
    assertThat(value("kubernetes_service_relation_connect_success_cpm", nobody)).isEqualTo("null");
  }

  @Test
  void trafficOfAServiceWithItselfIsDroppedAndCounted() throws Exception {
    assertThat(value("kubernetes_service_connect_cpm", service(reviews))).isEqualTo("1"); // to ratings only
    assertThat(sextant.get("/metrics")).containsPattern("sextant_receiver_records_rejected_total\\{[^}]*"
        + "reason=\"same_service\"[^}]*receiver=\"ebpf_access_log\"[^}]*} 1\\.0");
  }

  // --- reading

  private String duration() {
    return RoverNetworkEndToEnd.minute(time);
  }

  private static String id(String service) {
    return EntityIds.serviceId(service, true);
  }

  private static String service(String name) {
    return "serviceName: \"" + name + "\", normal: true";
  }

  private static String instance(String service, String pod) {
    return service(service) + ", serviceInstanceName: \"" + pod + "\"";
  }

  private static String relation(String source, String dest) {
    return service(source) + ", destServiceName: \"" + dest + "\", destNormal: true";
  }

  private List<String> answer(String expression, String entity) throws Exception {
    return RoverNetworkEndToEnd.answer(sextant, expression, entity, duration());
  }

  /** The one value of an unlabelled expression over the minute, waiting for it to be written. */
  private String value(String expression, String entity) throws Exception {
    return Poll.until(expression, Duration.ofSeconds(5), () -> answer(expression, entity), a -> !a.isEmpty())
        .get(0).replaceAll("^\\{}=\\[(.*)]$", "$1");
  }
}
