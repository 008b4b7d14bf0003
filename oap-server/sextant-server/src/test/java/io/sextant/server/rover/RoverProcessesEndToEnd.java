package io.sextant.server.rover;

import static io.sextant.server.rover.RoverClient.entity;
import static io.sextant.server.rover.RoverClient.host;
import static io.sextant.server.rover.RoverClient.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.server.rover.RoverClient.Proc;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SkyWalking Rover's process registration played over real gRPC (the published {@code
 * EBPFProcessService} stubs) in Rover's order — report, then keep-alive — and read back with real
 * HTTP GraphQL (metadata-v2): ids are SkyWalking's SHA-256 ids, the fields are what went in, a
 * process is listed only while it pings, its service is listed under its layer, and bad input is
 * refused with a reason and counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RoverProcessesEndToEnd {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FIELDS =
      "id name serviceId serviceName instanceId instanceName agentId detectType attributes { name value } labels";
  /** Keeps runs apart on a store that outlives a test class. */
  public final String run = UUID.randomUUID().toString().substring(0, 8);
  public final String namespace = "ns-" + run;
  public final String reviews = "reviews." + namespace;
  public final String pod = "reviews-v1-5d8f-" + run;
  public final Proc envoy = pod(entity("MESH_DP", reviews, pod, "envoy", "mesh-envoy"), 101, "istio-proxy", "10.1.2.3",
      "/usr/local/bin/envoy -c /etc/istio/proxy/envoy-rev.json", true);
  public final Proc app = pod(entity("MESH", reviews, pod, "python3", "mesh-application"), 7, "reviews", "10.1.2.3",
      "python3 reviews.py 9080", false);
  public final String billing = "billing-" + run;
  public final Proc vm = host(entity("GENERAL", billing, "vm-1", "java", "vm"), 4242, "java -jar billing.jar", true);
  public TestServer sextant;
  public RoverClient rover;

  /** Configuration that selects the storage backend under test. */
  protected abstract Map<String, String> storage();

  @BeforeAll
  public void start() {
    Map<String, String> config = new HashMap<>(storage());
    config.put("receiver.ebpf.maxProcessesPerReport", "5");
    config.put("receiver.ebpf.maxProcessesPerService", "3");
    sextant = new TestServer(config);
    rover = new RoverClient(sextant.grpcPort, "rover-node-1-" + run);
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  @Test
  public void reportedAndPingedProcessesAreListedWithSkyWalkingsIdsAndFields() throws Exception {
    EBPFReportProcessDownstream answer = rover.report(List.of(envoy, app, vm));
    assertThat(answer.getProcessesList()).hasSize(3);
    assertDownstream(answer.getProcesses(0), envoy);
    assertDownstream(answer.getProcesses(1), app);
    assertDownstream(answer.getProcesses(2), vm);
    assertThat(rover.keepAlive(List.of(envoy, app, vm)).getCommandsCount()).isZero();
    assertThat(rover.keepAlive(List.of(envoy, app, vm)).getCommandsCount()).isZero();
    sextant.flush();

    String podId = EntityIds.instanceId(EntityIds.serviceId(reviews, true), pod);
    JsonNode listed = visible("{ listProcesses(duration: " + duration(-5, 1) + ", instanceId: \"" + podId
        + "\") { " + FIELDS + " } }", "listProcesses", 2);
    assertThat(listed).isEqualTo(JSON.valueToTree(List.of(expected(envoy, "KUBERNETES"), expected(app,
        "KUBERNETES"))));

    String vmId = processId(vm);
    assertThat(sextant.data("{ getProcess(processId: \"" + vmId + "\") { " + FIELDS + " } }").get("getProcess"))
        .isEqualTo(JSON.valueToTree(expected(vm, "VM")));
    assertThat(sextant.data("{ getProcess(processId: \"\") { id } }").get("getProcess").isNull()).isTrue();
    assertThat(sextant.data("{ getProcess(processId: \"no-such-process\") { id } }").get("getProcess").isNull())
        .isTrue();

    // Only processes that support eBPF profiling count, and only those with every label asked for.
    String reviewsId = EntityIds.serviceId(reviews, true);
    assertThat(scale(reviewsId, "")).isEqualTo(1);
    assertThat(scale(reviewsId, "\"mesh-envoy\"")).isEqualTo(1);
    assertThat(scale(reviewsId, "\"mesh-application\"")).isZero();
    assertThat(scale(reviewsId, "\"mesh-envoy\", \"other\"")).isZero();
    assertThat(scale(EntityIds.serviceId(billing, true), "\"vm\"")).isEqualTo(1);
    assertThat(scale("", "")).isZero();

    // The pings registered the services under Rover's layers, and the instances.
    await(() -> serviceNames("MESH_DP").contains(reviews));
    assertThat(serviceNames("MESH")).contains(reviews);
    assertThat(serviceNames("GENERAL")).contains(billing);
    JsonNode instances = sextant.data("{ listInstances(duration: " + duration(-5, 1) + ", serviceId: \""
        + reviewsId + "\") { id name } }").get("listInstances");
    assertThat(instances.findValuesAsText("name")).containsExactly(pod);
    assertThat(instances.findValuesAsText("id")).containsExactly(podId);
  }

  @Test
  public void aProcessIsListedOnlyWhileItPingsAndEmptyOrMalformedArgumentsAnswerAsSkyWalking() throws Exception {
    rover.report(List.of(envoy));
    rover.keepAlive(List.of(envoy));
    sextant.flush();
    String podId = EntityIds.instanceId(EntityIds.serviceId(reviews, true), pod);
    visible("{ listProcesses(duration: " + duration(-2, 1) + ", instanceId: \"" + podId + "\") { id } }",
        "listProcesses", 1);
    // Its last ping is before this duration.
    assertThat(sextant.data("{ listProcesses(duration: " + duration(3, 8) + ", instanceId: \"" + podId
        + "\") { id } }").get("listProcesses")).isEmpty();
    assertThat(sextant.data("{ listProcesses(duration: " + duration(-2, 1) + ", instanceId: \"" + podId
        + "\") { id } }").get("listProcesses").findValuesAsText("id")).contains(processId(envoy));
    assertThat(sextant.data("{ listProcesses(duration: " + duration(-2, 1) + ", instanceId: \"\") { id } }")
        .get("listProcesses")).isEmpty();

    JsonNode bad = sextant.graphql("{ listProcesses(duration: {start: \"yesterday\", end: \"2026-01-01 1000\", "
        + "step: MINUTE}, instanceId: \"" + podId + "\") { id } }");
    assertThat(bad.get("errors")).isNotEmpty();
    assertThat(bad.get("errors").get(0).get("message").asText()).isNotBlank();
    JsonNode badService = sextant.graphql("{ estimateProcessScale(serviceId: \"not an id\", labels: []) }");
    assertThat(badService.get("errors")).isNotEmpty();
  }

  @Test
  public void badInputIsRefusedWithTheReasonAndCounted() {
    double before = rejected("unknown_layer");
    Proc wrongLayer = pod(entity("NOT_A_LAYER", reviews, pod, "envoy"), 101, "istio-proxy", "10.1.2.3", "envoy", true);
    assertThatThrownBy(() -> rover.keepAlive(List.of(envoy, wrongLayer)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription())
              .startsWith("rejected 1 of 2 processes; first: unknown_layer: unknown layer 'NOT_A_LAYER'");
        });
    assertThat(rejected("unknown_layer") - before).isEqualTo(1);

    before = rejected("missing_service");
    Proc noService = host(entity("GENERAL", "", "vm-2", "java"), 1, "java", true);
    assertThatThrownBy(() -> rover.report(List.of(noService)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("missing_service");
        });
    assertThat(rejected("missing_service") - before).isEqualTo(1);

    before = rejected("string_too_long");
    Proc longName = host(entity("GENERAL", billing, "vm-1", "x".repeat(1025)), 1, "java", true);
    assertThatThrownBy(() -> rover.report(List.of(longName)))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(rejected("string_too_long") - before).isEqualTo(1);

    before = rejected("too_many_processes");
    List<Proc> six = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      six.add(host(entity("GENERAL", "many-" + run, "vm-" + i, "java"), i, "java", true));
    }
    assertThatThrownBy(() -> rover.report(six)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains("receiver.ebpf.maxProcessesPerReport");
    });
    assertThat(rejected("too_many_processes") - before).isEqualTo(1);

    // Past the per-service limit a process is left out of the answer (Rover then stops reporting it).
    before = rejected("too_many_processes_per_service");
    List<Proc> crowded = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      crowded.add(host(entity("GENERAL", "crowded-" + run, "vm-" + i, "java"), i, "java", true));
    }
    EBPFReportProcessDownstream answer = rover.report(crowded);
    assertThat(answer.getProcessesList()).extracting(EBPFProcessDownstream::getProcessId)
        .containsExactly(processId(crowded.get(0)), processId(crowded.get(1)), processId(crowded.get(2)));
    assertThat(rejected("too_many_processes_per_service") - before).isEqualTo(1);
  }

  /**
   * The answer once it lists {@code count} items. The receiver writes straight into storage, and
   * Elasticsearch shows what it wrote at its next refresh (at most 30 s; sooner when the flusher
   * has written something); the memory store at once.
   */
  private JsonNode visible(String query, String field, int count) throws Exception {
    JsonNode[] last = new JsonNode[1];
    await(() -> {
      last[0] = sextant.data(query).get(field);
      return last[0].size() >= count;
    });
    return last[0];
  }

  public interface Check {
    boolean done() throws Exception;
  }

  /** Waits (45 s at most) until the check holds: what a receiver wrote shows at the store's refresh. */
  public static void await(Check check) throws Exception {
    Poll.until("visible", Duration.ofSeconds(45), check::done);
  }

  private static void assertDownstream(EBPFProcessDownstream d, Proc p) {
    assertThat(d.getProcessId()).isEqualTo(processId(p));
    if (p.kubernetes()) {
      assertThat(d.getK8SProcess().getPid()).isEqualTo(p.pid());
      assertThat(d.getK8SProcess().getEntityMetadata()).isEqualTo(p.entity());
    } else {
      assertThat(d.getHostProcess().getPid()).isEqualTo(p.pid());
      assertThat(d.getHostProcess().getEntityMetadata()).isEqualTo(p.entity());
    }
  }

  /** SkyWalking's id: the SHA-256 of "<process>_<instance id>". */
  public static String processId(Proc p) {
    return ProcessIds.processId(p.entity().getServiceName(), p.entity().getInstanceName(),
        p.entity().getProcessName());
  }

  private Map<String, Object> expected(Proc p, String detectType) {
    String serviceId = EntityIds.serviceId(p.entity().getServiceName(), true);
    List<Map<String, String>> attributes = new ArrayList<>();
    p.reported().stream().sorted((a, b) -> a.getKey().compareTo(b.getKey()))
        .forEach(kv -> attributes.add(Map.of("name", kv.getKey(), "value", kv.getValue())));
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("id", processId(p));
    m.put("name", p.entity().getProcessName());
    m.put("serviceId", serviceId);
    m.put("serviceName", p.entity().getServiceName());
    m.put("instanceId", EntityIds.instanceId(serviceId, p.entity().getInstanceName()));
    m.put("instanceName", p.entity().getInstanceName());
    m.put("agentId", rover.agentId());
    m.put("detectType", detectType);
    m.put("attributes", attributes);
    m.put("labels", p.entity().getLabelsList());
    return m;
  }

  private long scale(String serviceId, String labels) throws Exception {
    return sextant.data("{ estimateProcessScale(serviceId: \"" + serviceId + "\", labels: [" + labels + "]) }")
        .get("estimateProcessScale").asLong();
  }

  private List<String> serviceNames(String layer) throws Exception {
    return sextant.data("{ listServices(layer: \"" + layer + "\") { name } }").get("listServices")
        .findValuesAsText("name");
  }

  /** A minute-step duration from {@code fromMinutes} to {@code toMinutes} around now. */
  private static String duration(int fromMinutes, int toMinutes) {
    Instant now = Instant.now();
    return "{start: \"" + MINUTE.format(now.plusSeconds(60L * fromMinutes)) + "\", end: \""
        + MINUTE.format(now.plusSeconds(60L * toMinutes)) + "\", step: MINUTE}";
  }

  private double rejected(String reason) {
    Counter c = sextant.server.registry().find("sextant_receiver_records_rejected").tag("receiver", "ebpf")
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }
}
