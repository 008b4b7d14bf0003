package io.sextant.server.rover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.profiling.TaskDocuments;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousNetworkProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousOnCPUProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingPolicyQuery;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingReport;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServicePolicyQuery;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingSingleValueCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingTriggeredMonitorType;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingURICause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Continuous profiling end to end on the memory store: policies set through real HTTP GraphQL reach a
 * Rover played by the published {@code ContinuousProfilingService} stubs over real gRPC in the JSON
 * Rover 0.7 parses, once; tasks Rover reports are stored and counted by the monitoring queries; bad
 * input is refused with a reason and counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContinuousProfilingEndToEndTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String TARGET_FIELDS = "type checkItems { type threshold period count uriList uriRegex } "
      + "triggeredCount lastTriggerTimestamp";
  /** Keeps runs apart. */
  final String run = UUID.randomUUID().toString().substring(0, 8);
  @RegisterExtension

       static final SextantExtension SEXTANT =
           SextantExtension.perClass(Map.of("receiver.ebpf.continuousPolicyCacheSeconds", "1"));

  private static TestServer sextant() {
    return SEXTANT.server();
  }

  static ContinuousProfilingServiceGrpc.ContinuousProfilingServiceBlockingStub rover(TestServer server) {
    return GrpcClients.builder("http://127.0.0.1:" + server.grpcPort)
        .build(ContinuousProfilingServiceGrpc.ContinuousProfilingServiceBlockingStub.class);
  }

  /** Rover's poll: each service with the uuid it holds. */
  static Commands poll(TestServer server, String... serviceAndUuid) {
    ContinuousProfilingPolicyQuery.Builder q = ContinuousProfilingPolicyQuery.newBuilder();
    for (int i = 0; i < serviceAndUuid.length; i += 2) {
      q.addPolicies(ContinuousProfilingServicePolicyQuery.newBuilder().setServiceName(serviceAndUuid[i])
          .setUuid(serviceAndUuid[i + 1]));
    }
    return rover(server).queryPolicies(q.build());
  }

  /** The {@code ServiceWithPolicyJSON} of the one policy command, after checking the command's shape. */
  static String policyJson(Commands commands) {
    assertThat(commands.getCommandsList()).hasSize(1);
    Command c = commands.getCommands(0);
    assertThat(c.getCommand()).isEqualTo("ContinuousProfilingPolicyQuery");
    assertThat(c.getArgsList()).extracting(KeyStringValuePair::getKey)
        .containsExactly("SerialNumber", "ServiceWithPolicyJSON");
    assertThat(c.getArgs(0).getValue()).isNotEmpty();
    return c.getArgs(1).getValue();
  }

  static String setPolicy(TestServer server, String serviceId, String targets) throws Exception {
    return server.data("mutation { setContinuousProfilingPolicy(request: {serviceId: \"" + serviceId
        + "\", targets: [" + targets + "]}) { status errorReason } }").get("setContinuousProfilingPolicy")
        .toString();
  }

  static JsonNode targets(TestServer server, String serviceId) throws Exception {
    return server.data("{ queryContinuousProfilingServiceTargets(serviceId: \"" + serviceId + "\") { "
        + TARGET_FIELDS + " } }").get("queryContinuousProfilingServiceTargets");
  }

  static final String OK = "{\"status\":true,\"errorReason\":null}";
  // Given network first and its monitors out of order: stored (and answered) in SkyWalking's enum order.
  static final String POLICY = """
      {targetType: NETWORK, checkItems: [
         {type: HTTP_AVG_RESPONSE_TIME, threshold: "200", period: 20, count: 5, uriRegex: "/api/.*"},
         {type: HTTP_ERROR_RATE, threshold: "10", period: 10, count: 2, uriList: ["/cart", "/pay"]}]},
      {targetType: ON_CPU, checkItems: [{type: PROCESS_CPU, threshold: "80", period: 10, count: 3}]}""";

  @Test
  void aPolicySetThroughGraphqlReachesRoverOnceAndAChangeAfterTheCacheTime() throws Exception {
    String service = "shop-" + run;
    String serviceId = EntityIds.serviceId(service, true);

    assertThat(setPolicy(sextant(), serviceId, POLICY)).isEqualTo(OK);

    assertThat(targets(sextant(), serviceId)).isEqualTo(JSON.readTree("""
        [{"type":"ON_CPU","checkItems":[{"type":"PROCESS_CPU","threshold":"80","period":10,"count":3,
           "uriList":null,"uriRegex":null}],"triggeredCount":0,"lastTriggerTimestamp":null},
         {"type":"NETWORK","checkItems":[
           {"type":"HTTP_ERROR_RATE","threshold":"10","period":10,"count":2,"uriList":["/cart","/pay"],
            "uriRegex":null},
           {"type":"HTTP_AVG_RESPONSE_TIME","threshold":"200","period":20,"count":5,"uriList":null,
            "uriRegex":"/api/.*"}],"triggeredCount":0,"lastTriggerTimestamp":null}]"""));

    String json = policyJson(poll(sextant(), service, ""));
    String uuid = JSON.readTree(json).get(0).get("UUID").asText();
    assertThat(uuid).matches("[0-9a-f]{128}");
    // Exactly the text Rover unmarshals: SkyWalking's field names and order, nulls left out.
    assertThat(json).isEqualTo("[{\"ServiceName\":\"" + service + "\",\"UUID\":\"" + uuid + "\",\"Profiling\":{"
        + "\"ON_CPU\":{\"PROCESS_CPU\":{\"Threshold\":\"80\",\"Period\":10,\"Count\":3}},"
        + "\"NETWORK\":{\"HTTP_ERROR_RATE\":{\"Threshold\":\"10\",\"Period\":10,\"Count\":2,"
        + "\"URIList\":[\"/cart\",\"/pay\"]},"
        + "\"HTTP_AVG_RESPONSE_TIME\":{\"Threshold\":\"200\",\"Period\":20,\"Count\":5,\"URIRegex\":\"/api/.*\"}}}}]");

    // Rover now holds the uuid: nothing more to tell it; a service without a policy is not answered.
    assertThat(poll(sextant(), service, uuid, "other-" + run, "").getCommandsList()).isEmpty();
    // Setting the same policy again is no change.
    assertThat(setPolicy(sextant(), serviceId, POLICY)).isEqualTo(OK);
    assertThat(poll(sextant(), service, uuid).getCommandsList()).isEmpty();

    assertThat(setPolicy(sextant(), serviceId, "{targetType: OFF_CPU, checkItems: [{type: PROCESS_THREAD_COUNT, "
        + "threshold: \"500\", period: 6, count: 6}]}")).isEqualTo(OK);
    // Within the configured cache time (1 s) of the change.
    String changed = policyJson(Poll.until("the changed policy sent", Duration.ofSeconds(5),
        () -> poll(sextant(), service, uuid), c -> c.getCommandsCount() > 0));
    String newUuid = JSON.readTree(changed).get(0).get("UUID").asText();
    assertThat(newUuid).isNotEqualTo(uuid).matches("[0-9a-f]{128}");
    assertThat(changed).isEqualTo("[{\"ServiceName\":\"" + service + "\",\"UUID\":\"" + newUuid + "\",\"Profiling\":{"
        + "\"OFF_CPU\":{\"PROCESS_THREAD_COUNT\":{\"Threshold\":\"500\",\"Period\":6,\"Count\":6}}}}]");
    assertThat(poll(sextant(), service, newUuid).getCommandsList()).isEmpty();

    // No targets switches profiling off: Rover is told, with an empty profiling map.
    assertThat(setPolicy(sextant(), serviceId, "")).isEqualTo(OK);
    assertThat(targets(sextant(), serviceId)).isEmpty();
    String off = policyJson(Poll.until("the switch-off sent", Duration.ofSeconds(5),
        () -> poll(sextant(), service, newUuid), c -> c.getCommandsCount() > 0));
    assertThat(off).matches("\\[\\{\"ServiceName\":\"" + service + "\",\"UUID\":\"[0-9a-f]{128}\","
        + "\"Profiling\":\\{}}]");
  }

  @Test
  void aServiceWhosePolicyIsGoneIsAnsweredWithAnEmptyUuidSoRoverDropsIt() throws Exception {
    String ghost = "ghost-" + run;
    assertThat(policyJson(poll(sextant(), ghost, "a-uuid-rover-still-holds")))
        .isEqualTo("[{\"ServiceName\":\"" + ghost + "\",\"UUID\":\"\"}]");
    assertThat(poll(sextant(), ghost, "").getCommandsList()).isEmpty();
  }

  @Test
  void aReportedTaskIsStoredWithItsCausesAndCountsInTheMonitoringQueries() throws Exception {
    String service = "cart-" + run;
    String serviceId = EntityIds.serviceId(service, true);
    String instanceId = EntityIds.instanceId(serviceId, "cart-1");
    assertThat(setPolicy(sextant(), serviceId, POLICY)).isEqualTo(OK);
    long minute = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()).currentMinuteBucket();
    sextant().server.storage().metadata().upsertInstances(List.of(new InstanceMeta(instanceId, serviceId, "cart-1",
        "K8S_SERVICE", Map.of("pod", "cart-1", "namespace", "shop"), minute, minute)));
    String app = ProcessIds.processId(service, "cart-1", "app");
    String envoy = ProcessIds.processId(service, "cart-1", "envoy");
    sextant().server.storage().metadata().upsertProcesses(List.of(
        process(app, serviceId, instanceId, "app", "KUBERNETES", minute),
        process(envoy, serviceId, instanceId, "envoy", "KUBERNETES", minute),
        process(ProcessIds.processId(instanceId, ProcessIds.VIRTUAL_REMOTE), serviceId, instanceId,
            ProcessIds.VIRTUAL_REMOTE, "VIRTUAL", minute)));

    long before = System.currentTimeMillis();
    Commands answer = rover(sextant()).reportProfilingTask(ContinuousProfilingReport.newBuilder()
        .setLayer("K8S_SERVICE").setServiceName(service).setInstanceName("cart-1").setProcessName("app")
        .setDuration(600).setOnCPU(ContinuousOnCPUProfilingTask.getDefaultInstance())
        .addCauses(ContinuousProfilingCause.newBuilder().setType(ContinuousProfilingTriggeredMonitorType.ProcessCPU)
            .setSingleValue(ContinuousProfilingSingleValueCause.newBuilder().setThreshold(80).setCurrent(93.5)))
        .build());

    assertThat(answer.getCommandsList()).hasSize(1);
    Command command = answer.getCommands(0);
    assertThat(command.getCommand()).isEqualTo("ContinuousProfilingReportTask");
    assertThat(command.getArgsList()).extracting(KeyStringValuePair::getKey).containsExactly("SerialNumber", "TaskId");
    String taskId = command.getArgs(1).getValue();
    ProfilingTask task = TaskDocuments.fromDocument(
        sextant().server.storage().management().get(TaskDocuments.KIND, taskId).orElseThrow());
    assertThat(task.startTime()).isBetween(before, System.currentTimeMillis());
    assertThat(task).isEqualTo(new ProfilingTask(taskId, serviceId, instanceId, app, List.of(), "ON_CPU",
        "CONTINUOUS_PROFILING", task.startTime(), 600, task.startTime(), task.startTime(), "",
        List.of(new ProfilingTask.Cause("PROCESS_CPU", "", "", 80, 93.5))));

    JsonNode targets = targets(sextant(), serviceId);
    assertThat(targets.get(0).get("type").asText()).isEqualTo("ON_CPU");
    assertThat(targets.get(0).get("triggeredCount").asInt()).isEqualTo(1);
    assertThat(targets.get(0).get("lastTriggerTimestamp").asLong()).isEqualTo(task.startTime());
    assertThat(targets.get(1).get("triggeredCount").asInt()).isZero();
    assertThat(targets.get(1).get("lastTriggerTimestamp").isNull()).isTrue();

    String monitoring = "{ queryContinuousProfilingMonitoringInstances(serviceId: \"" + serviceId + "\", target: %s) {"
        + " id name attributes { name value } triggeredCount lastTriggerTimestamp"
        + " processes { id name detectType labels triggeredCount lastTriggerTimestamp } } }";
    assertThat(sextant().data(monitoring.formatted("ON_CPU")).get("queryContinuousProfilingMonitoringInstances"))
        .isEqualTo(JSON.readTree("""
            [{"id":"%s","name":"cart-1","attributes":[{"name":"namespace","value":"shop"},
               {"name":"pod","value":"cart-1"}],"triggeredCount":1,"lastTriggerTimestamp":%d,
              "processes":[
               {"id":"%s","name":"app","detectType":"KUBERNETES","labels":["k8s-service"],"triggeredCount":1,
                "lastTriggerTimestamp":%d},
               {"id":"%s","name":"envoy","detectType":"KUBERNETES","labels":["k8s-service"],"triggeredCount":0,
                "lastTriggerTimestamp":null}]}]"""
            .formatted(instanceId, task.startTime(), app, task.startTime(), envoy)));
    JsonNode offCpu =
        sextant().data(monitoring.formatted("OFF_CPU")).get("queryContinuousProfilingMonitoringInstances");
    assertThat(offCpu.get(0).get("triggeredCount").asInt()).isZero();
    assertThat(offCpu.get(0).get("processes")).hasSize(2);
  }

  @Test
  void aNetworkReportKeepsItsSamplingRegexesAndUriCauses() throws Exception {
    String service = "pay-" + run;
    Commands answer = rover(sextant()).reportProfilingTask(ContinuousProfilingReport.newBuilder()
        .setServiceName(service).setInstanceName("pay-1").setProcessName("app").setDuration(60)
        .setNetwork(ContinuousNetworkProfilingTask.newBuilder().addSamplingURIRegexes("/pay/.*"))
        .addCauses(ContinuousProfilingCause.newBuilder()
            .setType(ContinuousProfilingTriggeredMonitorType.HTTPErrorRate)
            .setUri(ContinuousProfilingURICause.newBuilder().setPath("/pay/card").setThreshold(10).setCurrent(25)))
        .build());

    ProfilingTask task = TaskDocuments.fromDocument(sextant().server.storage().management()
        .get(TaskDocuments.KIND, answer.getCommands(0).getArgs(1).getValue()).orElseThrow());
    assertThat(task.targetType()).isEqualTo("NETWORK");
    assertThat(task.processId()).isEqualTo(ProcessIds.processId(service, "pay-1", "app"));
    assertThat(task.causes()).containsExactly(new ProfilingTask.Cause("HTTP_ERROR_RATE", "", "/pay/card", 10, 25));
    assertThat(task.extensionConfigJson()).isEqualTo("{\"networkSamplings\":[{\"uriRegex\":\"/pay/.*\","
        + "\"minDuration\":0,\"when4xx\":true,\"when5xx\":true,"
        + "\"settings\":{\"requireCompleteRequest\":true,\"requireCompleteResponse\":true}}]}");
  }

  @Test
  void badReportsAreRefusedWithTheReasonAndCounted() {
    ContinuousProfilingReport good = ContinuousProfilingReport.newBuilder().setServiceName("bad-" + run)
        .setInstanceName("i").setProcessName("p").setDuration(60)
        .setOnCPU(ContinuousOnCPUProfilingTask.getDefaultInstance()).build();

    refused(good.toBuilder().clearOnCPU().build(), "unknown_target",
        "the continuous profiling task type cannot recognized");
    refused(good.toBuilder().setInstanceName("").build(), "missing_name", "instance name is empty");
    refused(good.toBuilder().setDuration(0).build(), "bad_duration", "duration must be in [1, 3600] seconds, got 0");
    refused(good.toBuilder().setProcessName("x".repeat(2000)).build(), "string_too_long",
        "process name is longer than 1024 characters");
    refused(good.toBuilder().addCauses(ContinuousProfilingCause.newBuilder()
        .setType(ContinuousProfilingTriggeredMonitorType.HTTPAvgResponseTime)
        .setUri(ContinuousProfilingURICause.newBuilder().setThreshold(1))).build(), "bad_cause",
        "the uri case not set");

    double before = rejected("too_many_services");
    ContinuousProfilingPolicyQuery.Builder many = ContinuousProfilingPolicyQuery.newBuilder();
    for (int i = 0; i <= 10_000; i++) {
      many.addPolicies(ContinuousProfilingServicePolicyQuery.newBuilder().setServiceName("s" + i));
    }
    assertThatThrownBy(() -> rover(sextant()).queryPolicies(many.build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).isEqualTo("at most 10000 services per policy query, got 10001");
        });
    assertThat(rejected("too_many_services") - before).isEqualTo(1);
  }

  @Test
  void badPoliciesAreRefusedWithSkyWalkingsReasons() throws Exception {
    String serviceId = EntityIds.serviceId("refused-" + run, true);
    assertThat(setPolicy(sextant(), serviceId, "{targetType: ON_CPU, checkItems: [{type: PROCESS_CPU, "
        + "threshold: \"80\", period: 3, count: 5}]}"))
        .isEqualTo("{\"status\":false,\"errorReason\":\"check PROCESS_CPU in ON_CPU error: count must be small "
            + "than period\"}");
    assertThat(setPolicy(sextant(), serviceId, "{targetType: ON_CPU, checkItems: [{type: PROCESS_CPU, "
        + "threshold: \"101\", period: 5, count: 3}]}"))
        .contains("check PROCESS_CPU in ON_CPU error: the process CPU percent should in [0-100]");
    assertThat(setPolicy(sextant(), serviceId, "{targetType: ON_CPU, checkItems: [{type: SYSTEM_LOAD, "
        + "threshold: \"high\", period: 5, count: 3}]}")).contains("check SYSTEM_LOAD in ON_CPU error: parsing "
            + "threshold error");
    assertThat(setPolicy(sextant(), serviceId, "{targetType: OFF_CPU, checkItems: []}, {targetType: OFF_CPU, "
        + "checkItems: []}")).contains("contains multiple same target type: OFF_CPU");
    assertThat(setPolicy(sextant(), "", "")).contains("the service id cannot be empty");
    assertThat(targets(sextant(), serviceId)).isEmpty();
  }

  private void refused(ContinuousProfilingReport report, String reason, String message) {
    double before = rejected(reason);
    assertThatThrownBy(() -> rover(sextant()).reportProfilingTask(report))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).isEqualTo(message);
        });
    assertThat(rejected(reason) - before).as(reason).isEqualTo(1);
  }

  private double rejected(String reason) {
    Counter c = sextant().server.registry().find("sextant_receiver_records_rejected").tag("receiver", "ebpf")
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  static ProcessMeta process(String id, String serviceId, String instanceId, String name, String detectType,
      long minute) {
    return new ProcessMeta(id, serviceId, instanceId, name, "K8S_SERVICE", "rover-1", detectType,
        List.of("k8s-service"), Map.of(), true, minute, minute);
  }
}
