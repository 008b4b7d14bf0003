package io.sextant.server.rover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterBucketValue;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterHistogram;
import org.apache.skywalking.apm.network.language.agent.v3.MeterReportServiceGrpc;
import org.apache.skywalking.apm.network.language.agent.v3.MeterSingleValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SkyWalking Rover's network-profiling and continuous-profiling meters over real gRPC ({@code
 * MeterReportService.collectBatch}, as Rover 0.7 sends them, and {@code collect}), read back with
 * real HTTP GraphQL: {@code getProcessTopology} and {@code execExpression} answer exactly what went
 * in, under SkyWalking 10.1's MAL rules. Pod A ({@code reviews}) has an app ({@code java}) and its
 * sidecar ({@code envoy}); pod B ({@code ratings}) has a sidecar and an app ({@code node}). The
 * sidecars talk across pods (each Rover sees the other side as an address: a virtual remote
 * process) and B's app calls a database outside the cluster (another remote peer).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RoverNetworkEndToEnd {
  public static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  public final String run = UUID.randomUUID().toString().substring(0, 6);
  public final String reviews = "reviews-" + run;
  public final String ratings = "ratings-" + run;
  public final String podA = "reviews-pod";
  public final String podB = "ratings-pod";
  public final String aJava = ProcessIds.processId(reviews, podA, "java");
  public final String aEnvoy = ProcessIds.processId(reviews, podA, "envoy");
  public final String aRemote = ProcessIds.processId(reviews, podA, ProcessIds.VIRTUAL_REMOTE);
  public final String bEnvoy = ProcessIds.processId(ratings, podB, "envoy");
  public final String bNode = ProcessIds.processId(ratings, podB, "node");
  public final String bRemote = ProcessIds.processId(ratings, podB, ProcessIds.VIRTUAL_REMOTE);
  public final long time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1_000;
  public TestServer sextant;
  public Status malformed;

  protected abstract Map<String, String> storage();

  @BeforeAll
  public void report() throws Exception {
    sextant = new TestServer(storage());
    // The processes Rover registered (EBPFProcessService.reportProcesses).
    long minute = Long.parseLong(DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(time)));
    List<ProcessMeta> real = new ArrayList<>();
    for (String[] p : List.of(new String[] {reviews, podA, "java", "MESH"},
        new String[] {reviews, podA, "envoy", "MESH_DP"}, new String[] {ratings, podB, "envoy", "MESH_DP"},
        new String[] {ratings, podB, "node", "MESH"})) {
      String serviceId = EntityIds.serviceId(p[0], true);
      String instanceId = EntityIds.instanceId(serviceId, p[1]);
      real.add(new ProcessMeta(ProcessIds.processId(instanceId, p[2]), serviceId, instanceId, p[2], p[3],
          "rover-1", "KUBERNETES", List.of(), Map.of(), true, minute, minute));
    }
    sextant.server.storage().metadata().upsertProcesses(real);
    // Rover on pod A, one collection per flush period (two periods in the minute).
    assertThat(batch(collection(reviews, podA,
        single("rover_net_p_client_write_counts_counter", 30, rel("client", aJava, aEnvoy, "http", "false")),
        single("rover_net_p_client_write_bytes_counter", 4096, rel("client", aJava, aEnvoy, "http", "false")),
        single("rover_net_p_client_write_exe_time_counter", 200, rel("client", aJava, aEnvoy, "http", "false")),
        // another connection between the same processes in the same batch: summed first, as MAL's .sum
        single("rover_net_p_client_write_exe_time_counter", 300, rel("client", aJava, aEnvoy, "http", "false")),
        histogram("rover_net_p_client_write_rtt_histogram", rel("client", aJava, aEnvoy, "http", "false"),
            0, 10, 5, 20, 10, 60, 50, 10),
        single("rover_net_p_http1_response_status_counter", 25,
            with(rel("client", aJava, aEnvoy, "http", "false"), "code", "200")),
        single("rover_net_p_http1_response_status_counter", 5,
            with(rel("client", aJava, aEnvoy, "http", "false"), "code", "404")),
        single("rover_net_p_server_read_counts_counter", 30, rel("server", aJava, aEnvoy, "http", "false")),
        // the sidecar's connection to pod B: an address, so A's virtual remote process
        single("rover_net_p_client_write_counts_counter", 12,
            remoteServer("client", aEnvoy, "10.0.0.7:15006", "tcp", "true")),
        single("rover_con_p_process_cpu", 0.25, process("java", "MESH")),
        single("rover_con_p_process_cpu", 0.35, process("java", "MESH")),
        single("rover_con_p_system_load", 1.5, process("java", "MESH")),
        single("rover_net_p_some_meter_no_rule_maps", 1, rel("client", aJava, aEnvoy, "http", "false")))))
        .isEqualTo(Status.Code.OK);
    assertThat(batch(collection(reviews, podA,
        single("rover_net_p_client_write_exe_time_counter", 100, rel("client", aJava, aEnvoy, "http", "false")),
        histogram("rover_net_p_client_write_rtt_histogram", rel("client", aJava, aEnvoy, "http", "false"),
            0, 0, 5, 0, 10, 0, 50, 0),
        single("rover_con_p_process_cpu", 0.5, process("java", "MESH")))))
        .isEqualTo(Status.Code.OK);
    // Rover on pod B over the plain collect stream: the other side of the sidecars, and the database.
    MeterReportServiceGrpc.MeterReportServiceStub stub = stub();
    List<MeterData> b = new ArrayList<>(collection(ratings, podB,
        single("rover_net_p_server_read_counts_counter", 12,
            remoteClient("server", bEnvoy, "10.0.0.5:41000", "tcp", "true")),
        single("rover_net_p_client_write_counts_counter", 7,
            remoteServer("client", bNode, "10.9.9.9:5432", "tcp", "false"))).getMeterDataList());
    assertThat(TestServer.clientStream(stub::collect, b).getCode()).isEqualTo(Status.Code.OK);
    // A sample without its side: refused, named in the answer.
    malformed = batch(List.of(collection(ratings, podB, single("rover_net_p_client_write_counts_counter", 1,
        List.of(label("client_process_id", bNode), label("server_address", "10.9.9.9:5432"))))));
    sextant.flush();
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  @Test
  public void theProcessTopologyOfPodAIsItsProcessesAndItsRemotePeer() throws Exception {
    JsonNode t = topology(EntityIds.instanceId(EntityIds.serviceId(reviews, true), podA), 3);
    assertThat(nodes(t)).containsExactly(
        aRemote + " UNKNOWN_REMOTE " + reviews + "/" + podA + " virtual",
        aEnvoy + " envoy " + reviews + "/" + podA + " real",
        aJava + " java " + reviews + "/" + podA + " real");
    assertThat(calls(t)).containsExactlyInAnyOrder(
        aJava + "-" + aEnvoy + " " + aJava + "->" + aEnvoy + " [CLIENT, SERVER] [http] [http]",
        aEnvoy + "-" + aRemote + " " + aEnvoy + "->" + aRemote + " [CLIENT] [tls] []");
  }

  @Test
  public void theProcessTopologyOfPodBHasBothRemotePeersAsOneVirtualProcess() throws Exception {
    JsonNode t = topology(EntityIds.instanceId(EntityIds.serviceId(ratings, true), podB), 3);
    assertThat(nodes(t)).containsExactly(
        bRemote + " UNKNOWN_REMOTE " + ratings + "/" + podB + " virtual",
        bEnvoy + " envoy " + ratings + "/" + podB + " real",
        bNode + " node " + ratings + "/" + podB + " real");
    assertThat(calls(t)).containsExactlyInAnyOrder(
        bRemote + "-" + bEnvoy + " " + bRemote + "->" + bEnvoy + " [SERVER] [] [tls]",
        bNode + "-" + bRemote + " " + bNode + "->" + bRemote + " [CLIENT] [tcp] []");
  }

  @Test
  public void anUnknownOrEmptyInstanceHasAnEmptyTopology() throws Exception {
    JsonNode t = topology(EntityIds.instanceId(EntityIds.serviceId("nobody", true), "none"), 0);
    assertThat(t.get("nodes")).isEmpty();
    assertThat(t.get("calls")).isEmpty();
    JsonNode empty = sextant.data("{ t: getProcessTopology(serviceInstanceId: \"\", duration: " + duration()
        + ") { nodes { id } calls { id } } }").get("t");
    assertThat(empty.get("nodes")).isEmpty();
  }

  @Test
  public void relationMetricsFollowSkyWalkingsRules() throws Exception {
    String appToSidecar = relation(reviews, podA, "java", reviews, podA, "envoy");
    assertThat(answer("process_relation_client_write_cpm", appToSidecar)).containsExactly("{}=[30]");
    assertThat(answer("process_relation_client_write_total_bytes", appToSidecar)).containsExactly("{}=[4096]");
    // (200 + 300) in the first batch, 100 in the second: the mean of the two batches
    assertThat(answer("process_relation_client_write_avg_exe_time", appToSidecar)).containsExactly("{}=[300]");
    assertThat(answer("process_relation_server_read_cpm", appToSidecar)).containsExactly("{}=[30]");
    assertThat(answer("process_relation_client_write_rtt_time_percentile", appToSidecar)).containsExactly(
        "{p=50}=[10]", "{p=70}=[10]", "{p=90}=[10]", "{p=99}=[50]");
    assertThat(answer("process_relation_http1_response_status_cpm", appToSidecar))
        .containsExactly("{code=200}=[25]", "{code=404}=[5]");
    assertThat(answer("process_relation_client_write_cpm",
        relation(reviews, podA, "envoy", reviews, podA, ProcessIds.VIRTUAL_REMOTE))).containsExactly("{}=[12]");
    assertThat(answer("process_relation_client_write_cpm",
        relation(ratings, podB, "node", ratings, podB, ProcessIds.VIRTUAL_REMOTE))).containsExactly("{}=[7]");
  }

  @Test
  public void continuousProfilingMetricsAreScaledAsSkyWalkingScalesThem() throws Exception {
    String java = "serviceName: \"" + reviews + "\", normal: true, serviceInstanceName: \"" + podA
        + "\", processName: \"java\"";
    // (0.25 + 0.35) / 2 and 0.5, each × 10000, averaged over the minute
    assertThat(answer("continuous_profiling_process_cpu", java)).containsExactly("{}=[4000]");
    assertThat(answer("continuous_profiling_system_load", java)).containsExactly("{}=[150]");
  }

  @Test
  public void unmappedMetersAreCountedAndMalformedSamplesRefused() throws Exception {
    assertThat(malformed.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(malformed.getDescription()).contains("missing_label").contains("side");
    String metrics = sextant.get("/metrics");
    assertThat(metrics).containsPattern(
        "sextant_receiver_records_rejected_total\\{[^}]*reason=\"unmapped_meter\"[^}]*receiver=\"ebpf\"[^}]*} 1\\.0");
    assertThat(metrics).containsPattern(
        "sextant_receiver_records_rejected_total\\{[^}]*reason=\"missing_label\"[^}]*receiver=\"ebpf\"[^}]*} 1\\.0");
  }

  // --- reading

  private String duration() {
    return minute(time);
  }

  /** A one-minute duration: the minute of {@code time}. */
  public static String minute(long time) {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return "{start: \"" + m + "\", end: \"" + m + "\", step: MINUTE}";
  }

  public JsonNode topology(String instanceId, int expectedNodes) throws Exception {
    return topology(sextant, instanceId, duration(), expectedNodes);
  }

  /** The topology, waiting (a few seconds at most) for the virtual processes the receiver writes. */
  public static JsonNode topology(TestServer sextant, String instanceId, String duration, int expectedNodes)
      throws Exception {
    String query = "{ t: getProcessTopology(serviceInstanceId: \"" + instanceId + "\", duration: " + duration
        + ") { nodes { id name serviceId serviceName serviceInstanceId serviceInstanceName isReal } "
        + "calls { id source target detectPoints sourceComponents targetComponents } } }";
    return Poll.until(expectedNodes + " process nodes", Duration.ofSeconds(5), () -> {
      sextant.flush();
      return sextant.data(query).get("t");
    }, t -> t.get("nodes").size() >= expectedNodes);
  }

  public static List<String> nodes(JsonNode t) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : t.get("nodes")) {
      assertThat(n.get("serviceId").asText()).isEqualTo(EntityIds.serviceId(n.get("serviceName").asText(), true));
      assertThat(n.get("serviceInstanceId").asText()).isEqualTo(
          EntityIds.instanceId(n.get("serviceId").asText(), n.get("serviceInstanceName").asText()));
      out.add(n.get("id").asText() + " " + n.get("name").asText() + " " + n.get("serviceName").asText() + "/"
          + n.get("serviceInstanceName").asText() + " " + (n.get("isReal").asBoolean() ? "real" : "virtual"));
    }
    return out;
  }

  public static List<String> calls(JsonNode t) {
    List<String> out = new ArrayList<>();
    for (JsonNode c : t.get("calls")) {
      out.add(c.get("id").asText() + " " + c.get("source").asText() + "->" + c.get("target").asText() + " "
          + texts(c.get("detectPoints")) + " " + texts(c.get("sourceComponents")) + " "
          + texts(c.get("targetComponents")));
    }
    return out;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asText()));
    return out;
  }

  public static String relation(String service, String instance, String process, String destService,
      String destInstance,
      String destProcess) {
    return "serviceName: \"" + service + "\", normal: true, serviceInstanceName: \"" + instance
        + "\", processName: \"" + process + "\", destServiceName: \"" + destService
        + "\", destNormal: true, destServiceInstanceName: \"" + destInstance + "\", destProcessName: \""
        + destProcess + "\"";
  }

  public List<String> answer(String expression, String entity) throws Exception {
    return answer(sextant, expression, entity, duration());
  }

  /** Each series as labels=values, e.g. {p=50}=[10]. */
  public static List<String> answer(TestServer sextant, String expression, String entity, String duration)
      throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + expression + "\", entity: {" + entity
        + "}, duration: " + duration + ") { type error results { metric { labels { key value } } "
        + "values { value } } } }").get("r");
    assertThat(r.get("error").isNull()).as("%s: %s", expression, r.get("error")).isTrue();
    List<String> out = new ArrayList<>();
    for (JsonNode series : r.get("results")) {
      StringBuilder s = new StringBuilder("{");
      for (JsonNode kv : series.get("metric").get("labels")) {
        s.append(s.length() > 1 ? "," : "").append(kv.get("key").asText()).append('=').append(kv.get("value").asText());
      }
      List<String> values = new ArrayList<>();
      series.get("values").forEach(v -> values.add(v.get("value").isNull() ? "null" : v.get("value").asText()));
      out.add(s.append("}=").append(values).toString());
    }
    return out;
  }

  // --- Rover's messages

  public MeterReportServiceGrpc.MeterReportServiceStub stub() {
    return GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MeterReportServiceGrpc.MeterReportServiceStub.class);
  }

  public Status.Code batch(MeterDataCollection collection) throws Exception {
    return batch(List.of(collection)).getCode();
  }

  public Status batch(List<MeterDataCollection> collections) throws Exception {
    return batch(sextant, collections);
  }

  /** One {@code collectBatch} stream, as Rover opens one per flush. */
  public static Status batch(TestServer sextant, List<MeterDataCollection> collections) throws Exception {
    MeterReportServiceGrpc.MeterReportServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + sextant.grpcPort)
        .build(MeterReportServiceGrpc.MeterReportServiceStub.class);
    return TestServer.clientStream(stub::collectBatch, collections);
  }

  public MeterDataCollection collection(String service, String instance, MeterData.Builder... meters) {
    return collection(time, service, instance, meters);
  }

  /** As Rover builds one: service, instance and time on the first meter only. */
  public static MeterDataCollection collection(long time, String service, String instance,
      MeterData.Builder... meters) {
    MeterDataCollection.Builder c = MeterDataCollection.newBuilder();
    for (int i = 0; i < meters.length; i++) {
      if (i == 0) {
        meters[i].setService(service).setServiceInstance(instance).setTimestamp(time);
      }
      c.addMeterData(meters[i]);
    }
    return c.build();
  }

  public static MeterData.Builder single(String name, double value, List<Label> labels) {
    return MeterData.newBuilder().setSingleValue(MeterSingleValue.newBuilder().setName(name).setValue(value)
        .addAllLabels(labels));
  }

  /** Buckets as (lower bound, count) pairs. */
  public static MeterData.Builder histogram(String name, List<Label> labels, long... boundsAndCounts) {
    MeterHistogram.Builder h = MeterHistogram.newBuilder().setName(name).addAllLabels(labels);
    for (int i = 0; i < boundsAndCounts.length; i += 2) {
      h.addValues(MeterBucketValue.newBuilder().setBucket(boundsAndCounts[i]).setCount(boundsAndCounts[i + 1]));
    }
    return MeterData.newBuilder().setHistogram(h);
  }

  public static Label label(String name, String value) {
    return Label.newBuilder().setName(name).setValue(value).build();
  }

  /** Rover's labels for a connection between two processes it knows. */
  public static List<Label> rel(String side, String client, String server, String protocol, String ssl) {
    return List.of(label("client_process_id", client), label("server_process_id", server), label("side", side),
        label("protocol", protocol), label("is_ssl", ssl));
  }

  /** A connection from a local client process to a remote address. */
  public static List<Label> remoteServer(String side, String client, String address, String protocol, String ssl) {
    return List.of(label("client_process_id", client), label("server_address", address), label("side", side),
        label("protocol", protocol), label("is_ssl", ssl));
  }

  /** A connection from a remote address to a local server process. */
  public static List<Label> remoteClient(String side, String server, String address, String protocol, String ssl) {
    return List.of(label("server_process_id", server), label("client_address", address), label("side", side),
        label("protocol", protocol), label("is_ssl", ssl));
  }

  public static List<Label> with(List<Label> labels, String name, String value) {
    List<Label> out = new ArrayList<>(labels);
    out.add(label(name, value));
    return out;
  }

  public static List<Label> process(String name, String layer) {
    return List.of(label("process_name", name), label("layer", layer));
  }
}
