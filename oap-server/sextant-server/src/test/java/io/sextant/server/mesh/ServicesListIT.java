package io.sextant.server.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The services list follows SkyWalking 10.1: a service (and its instance) is listed once it reports
 * its own server side; a destination seen only in someone else's client-side report, and a caller
 * that only reports client side, are topology nodes but not listed. Real gRPC in, real HTTP GraphQL out.
 */
class ServicesListIT {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final String CRON = EntityIds.serviceId("cron", true);
  private static final String FRONTEND = EntityIds.serviceId("frontend", true);
  private static final String BACKEND = EntityIds.serviceId("backend", true);
  private static final String DB = EntityIds.serviceId("db", true);
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perTest(Map.of());
  private TestServer sextant;
  private long time;

  @BeforeEach
  void start() {
    sextant = SEXTANT.server();
    time = (System.currentTimeMillis() / 60_000 - 1) * 60_000 + 1000;
  }

  @Test
  void aDestinationIsListedOnlyOnceItReportsItsOwnServerSide() throws Exception {
    // cron only calls (client side); frontend reports its server side; backend and db are only
    // ever named by frontend's client-side reports, over HTTP and TCP.
    send(List.of(http("cron", "cron-0", "frontend", "frontend-0", "GET:/run", DetectPoint.client),
            http("cron", "cron-0", "frontend", "frontend-0", "GET:/run", DetectPoint.server),
            http("frontend", "frontend-0", "backend", "backend-0", "GET:/items", DetectPoint.client)),
        List.of(tcp("frontend", "frontend-0", "db", "db-0", DetectPoint.client)));

    assertThat(listServices()).containsExactly("frontend");
    assertThat(getAllServices()).containsExactly("frontend");
    assertThat(searchServices("end")).containsExactly("frontend");
    assertThat(sextant.data("{ listLayers }").get("listLayers").toString()).isEqualTo("[\"MESH\"]");
    assertThat(sextant.data("{ findService(serviceName: \"backend\") { id } }").get("findService").isNull())
        .isTrue();
    assertThat(instances(FRONTEND)).containsExactly("frontend-0");
    assertThat(instances(CRON)).isEmpty();
    assertThat(instances(BACKEND)).isEmpty();
    assertThat(instances(DB)).isEmpty();
    assertThat(endpoints(FRONTEND)).containsExactly("GET:/run");
    assertThat(endpoints(BACKEND)).isEmpty();
    // Unlisted services are still nodes, named from their ids; a destination nobody answered for
    // has no type.
    assertThat(nodes()).containsExactly("backend type=null real=true", "cron type=null real=true",
        "db type=null real=true", "frontend type=http real=true");
    assertThat(calls()).containsExactly("cron->frontend [\"CLIENT\",\"SERVER\"]",
        "frontend->backend [\"CLIENT\"]", "frontend->db [\"CLIENT\"]");
    assertThat(instanceNodes(FRONTEND, BACKEND)).containsExactly("backend-0 of backend", "frontend-0 of frontend");

    // backend and db now report their own server side: they, their instances and backend's
    // endpoint are listed. cron still only calls.
    send(List.of(http("frontend", "frontend-0", "backend", "backend-0", "GET:/items", DetectPoint.server)),
        List.of(tcp("frontend", "frontend-0", "db", "db-0", DetectPoint.server)));

    assertThat(listServices()).containsExactly("backend", "db", "frontend");
    assertThat(getAllServices()).containsExactly("backend", "db", "frontend");
    assertThat(searchServices("end")).containsExactly("backend", "frontend");
    assertThat(instances(BACKEND)).containsExactly("backend-0");
    assertThat(instances(DB)).containsExactly("db-0");
    assertThat(instances(CRON)).isEmpty();
    assertThat(endpoints(BACKEND)).containsExactly("GET:/items");
    assertThat(nodes()).containsExactly("backend type=http real=true", "cron type=null real=true",
        "db type=tcp real=true", "frontend type=http real=true");
    assertThat(calls()).containsExactly("cron->frontend [\"CLIENT\",\"SERVER\"]",
        "frontend->backend [\"CLIENT\",\"SERVER\"]", "frontend->db [\"CLIENT\",\"SERVER\"]");
  }

  private void send(List<HTTPServiceMeshMetric> http, List<TCPServiceMeshMetric> tcp) throws Exception {
    Status status = sextant.stream(List.of(
        ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addAllMetrics(http))
            .build(),
        ServiceMeshMetrics.newBuilder().setTcpMetrics(TCPServiceMeshMetrics.newBuilder().addAllMetrics(tcp))
            .build()));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  private HTTPServiceMeshMetric http(String source, String sourcePod, String dest, String destPod, String endpoint,
      DetectPoint side) {
    return HTTPServiceMeshMetric.newBuilder()
        .setStartTime(time).setEndTime(time + 20).setLatency(20)
        .setSourceServiceName(source).setSourceServiceInstance(sourcePod)
        .setDestServiceName(dest).setDestServiceInstance(destPod)
        .setEndpoint(endpoint).setResponseCode(200).setStatus(true)
        .setProtocol(Protocol.HTTP).setDetectPoint(side).setTlsMode("NONE")
        .build();
  }

  private TCPServiceMeshMetric tcp(String source, String sourcePod, String dest, String destPod, DetectPoint side) {
    return TCPServiceMeshMetric.newBuilder()
        .setStartTime(time).setEndTime(time + 5)
        .setSourceServiceName(source).setSourceServiceInstance(sourcePod)
        .setDestServiceName(dest).setDestServiceInstance(destPod)
        .setDetectPoint(side).setTlsMode("NONE").setReceivedBytes(100).setSentBytes(10)
        .build();
  }

  private String duration() {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return "{start: \"" + m + "\", end: \"" + m + "\", step: MINUTE}";
  }

  private List<String> listServices() throws Exception {
    return names(sextant.data("{ listServices(layer: \"MESH\") { name } }").get("listServices"), "name");
  }

  private List<String> getAllServices() throws Exception {
    return names(sextant.data("{ getAllServices(duration: " + duration() + ") { name } }").get("getAllServices"),
        "name");
  }

  private List<String> searchServices(String keyword) throws Exception {
    return names(sextant.data("{ searchServices(duration: " + duration() + ", keyword: \"" + keyword
        + "\") { name } }").get("searchServices"), "name");
  }

  private List<String> instances(String serviceId) throws Exception {
    return names(sextant.data("{ listInstances(duration: " + duration() + ", serviceId: \"" + serviceId
        + "\") { name } }").get("listInstances"), "name");
  }

  private List<String> endpoints(String serviceId) throws Exception {
    return names(sextant.data("{ findEndpoint(serviceId: \"" + serviceId + "\", keyword: \"\", limit: 100)"
        + " { name } }").get("findEndpoint"), "name");
  }

  private List<String> nodes() throws Exception {
    List<String> out = new ArrayList<>();
    sextant.data("{ t: getGlobalTopology(duration: " + duration() + ", layer: \"MESH\") { nodes { name type isReal }"
        + " } }").get("t").get("nodes").forEach(n -> out.add(n.get("name").asText() + " type="
            + (n.get("type").isNull() ? "null" : n.get("type").asText()) + " real=" + n.get("isReal").asBoolean()));
    return sorted(out);
  }

  private List<String> calls() throws Exception {
    List<String> out = new ArrayList<>();
    sextant.data("{ t: getGlobalTopology(duration: " + duration() + ", layer: \"MESH\") { calls { source target"
        + " detectPoints } } }").get("t").get("calls").forEach(c -> out.add(
            EntityIds.parseServiceId(c.get("source").asText()).name() + "->"
                + EntityIds.parseServiceId(c.get("target").asText()).name() + " " + c.get("detectPoints")));
    return sorted(out);
  }

  private List<String> instanceNodes(String client, String server) throws Exception {
    List<String> out = new ArrayList<>();
    sextant.data("{ t: getServiceInstanceTopology(clientServiceId: \"" + client + "\", serverServiceId: \""
        + server + "\", duration: " + duration() + ") { nodes { name serviceName } } }").get("t").get("nodes")
        .forEach(n -> out.add(n.get("name").asText() + " of " + n.get("serviceName").asText()));
    return sorted(out);
  }

  private static List<String> names(JsonNode list, String field) {
    List<String> out = new ArrayList<>();
    list.forEach(n -> out.add(n.get(field).asText()));
    return sorted(out);
  }

  private static List<String> sorted(List<String> list) {
    List<String> copy = new ArrayList<>(list);
    copy.sort(null);
    return copy;
  }
}
