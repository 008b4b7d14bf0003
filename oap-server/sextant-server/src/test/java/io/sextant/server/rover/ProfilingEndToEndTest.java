package io.sextant.server.rover;

import static io.sextant.server.rover.RoverProfiling.argNames;
import static io.sextant.server.rover.RoverProfiling.args;
import static io.sextant.server.rover.RoverProfiling.instanceId;
import static io.sextant.server.rover.RoverProfiling.offCpu;
import static io.sextant.server.rover.RoverProfiling.onCpu;
import static io.sextant.server.rover.RoverProfiling.poll;
import static io.sextant.server.rover.RoverProfiling.process;
import static io.sextant.server.rover.RoverProfiling.serviceId;
import static io.sextant.server.rover.RoverProfiling.stack;
import static io.sextant.server.rover.RoverProfiling.task;
import static io.sextant.server.rover.RoverProfiling.upload;
import static org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType.PROCESS_KERNEL_SPACE;
import static org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType.PROCESS_USER_SPACE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.core.profiling.TaskDocuments;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;
import org.junit.jupiter.api.Test;

/**
 * eBPF profiling end to end on the memory store: tasks created over real HTTP GraphQL reach a Rover
 * polling over real gRPC exactly once, a kept-alive network task once more; stacks uploaded over a
 * real client stream come back as SkyWalking's flame-graph trees; bad input is refused and counted.
 */
class ProfilingEndToEndTest extends ProfilingEndToEnd {
  @Override
  protected Map<String, String> storage() {
    // Every poll reads the task list, so a change shows at once (the two-collector IT keeps the cache).
    return Map.of("receiver.ebpf.profiling.taskCacheMillis", "0");
  }

  @Test
  void aFixedTimeTaskReachesThePollingRoverExactlyOnce() throws Exception {
    String svc = service("checkout");
    ProcessMeta labelled = process(svc, "pod-1", "java", "rover-a-" + run, true, List.of("env:prod"));
    ProcessMeta unlabelled = process(svc, "pod-1", "sidecar", "rover-a-" + run, true, List.of());
    ProcessMeta unsupported = process(svc, "pod-1", "bash", "rover-a-" + run, false, List.of("env:prod"));
    seed(sextant, labelled, unlabelled, unsupported);

    JsonNode prepare = sextant.data("{ p: queryPrepareCreateEBPFProfilingTaskData(serviceId: \"%s\") "
        .formatted(serviceId(svc)) + "{ couldProfiling processLabels } }").get("p");
    assertThat(prepare.get("couldProfiling").asBoolean()).isTrue();
    assertThat(prepare.get("processLabels").toString()).isEqualTo("[\"env:prod\"]");

    String id = createdId(createFixed(sextant, svc, "ON_CPU", 120, "\"env:prod\""));

    List<Command> first = commands(poll(sextant, "rover-a-" + run, 0));
    assertThat(first).hasSize(1);
    Command c = first.get(0);
    assertThat(c.getCommand()).isEqualTo("EBPFProfilingTaskQuery");
    assertThat(argNames(c)).containsExactly("SerialNumber", "TaskId", "ProcessId", "TaskUpdateTime", "TriggerType",
        "TargetType", "TaskStartTime", "ExtensionConfigJSON", "FixedTriggerDuration");
    JsonNode listed = sextant.data("""
        { t: queryEBPFProfilingTasks(serviceId: "%s", targets: [ON_CPU]) { taskId serviceId serviceName
          serviceInstanceId processLabels taskStartTime triggerType fixedTriggerDuration targetType createTime
          continuousProfilingCauses { message } } }""".formatted(serviceId(svc))).get("t");
    assertThat(listed).hasSize(1);
    JsonNode t = listed.get(0);
    assertThat(t.get("taskId").asText()).isEqualTo(id);
    assertThat(t.get("serviceName").asText()).isEqualTo(svc);
    assertThat(t.get("serviceInstanceId").isNull()).isTrue();
    assertThat(t.get("processLabels").toString()).isEqualTo("[\"env:prod\"]");
    assertThat(t.get("triggerType").asText()).isEqualTo("FIXED_TIME");
    assertThat(t.get("fixedTriggerDuration").asLong()).isEqualTo(120);
    assertThat(t.get("continuousProfilingCauses").isNull()).isTrue();
    Map<String, String> a = args(c);
    assertThat(a).containsEntry("TaskId", id).containsEntry("ProcessId", labelled.id())
        .containsEntry("TriggerType", "FIXED_TIME").containsEntry("TargetType", "ON_CPU")
        .containsEntry("TaskStartTime", t.get("taskStartTime").asText())
        .containsEntry("TaskUpdateTime", t.get("createTime").asText())
        .containsEntry("ExtensionConfigJSON", "null").containsEntry("FixedTriggerDuration", "120");

    assertThat(commands(poll(sextant, "rover-a-" + run, updateTime(c)))).isEmpty();
    assertThat(commands(poll(sextant, "rover-unknown-" + run, 0))).isEmpty();
  }

  @Test
  void aNetworkTaskListsTheInstancesProcessesAndComesOnceMoreWhenKeptAlive() throws Exception {
    String svc = service("orders");
    String agent = "rover-n-" + run;
    ProcessMeta a = proc(svc, "pod-a", "envoy", agent);
    ProcessMeta b = proc(svc, "pod-a", "app", agent);
    ProcessMeta elsewhere = proc(svc, "pod-b", "app", agent);
    seed(sextant, a, b, elsewhere);

    JsonNode created = sextant.data("""
        mutation { r: createEBPFNetworkProfiling(request: {instanceId: "%s", samplings: [{uriRegex: "/api/.*",
          minDuration: 100, when4xx: true, when5xx: false, settings: {requireCompleteRequest: true,
          maxRequestSize: 1024, requireCompleteResponse: false}}]}) { status errorReason id } }"""
        .formatted(instanceId(svc, "pod-a"))).get("r");
    String id = createdId(created);

    List<Command> first = commands(poll(sextant, agent, 0));
    assertThat(first).hasSize(1);
    Map<String, String> args = args(first.get(0));
    assertThat(List.of(args.get("ProcessId").split(","))).containsExactlyInAnyOrder(a.id(), b.id());
    assertThat(args).containsEntry("TaskId", id).containsEntry("TargetType", "NETWORK")
        .containsEntry("TriggerType", "FIXED_TIME").containsEntry("FixedTriggerDuration", "600")
        .containsEntry("ExtensionConfigJSON", "{\"NetworkSamplings\":[{\"URIRegex\":\"/api/.*\",\"MinDuration\":100,"
            + "\"When4xx\":true,\"When5xx\":false,\"Settings\":{\"RequireCompleteRequest\":true,"
            + "\"MaxRequestSize\":1024,\"RequireCompleteResponse\":false}}]}");
    long seen = updateTime(first.get(0));
    assertThat(commands(poll(sextant, agent, seen))).isEmpty();

    // Ten minutes left: a keep-alive changes nothing, so nothing new reaches Rover.
    assertThat(keep(id).get("status").asBoolean()).isTrue();
    assertThat(commands(poll(sextant, agent, seen))).isEmpty();

    // Nine minutes and fifty seconds later (the task document aged as time would age it) it is extended.
    long aged = age(sextant, id, 590_000);
    JsonNode kept = keep(id);
    assertThat(kept.get("status").asBoolean()).as(kept.toString()).isTrue();
    List<Command> again = commands(poll(sextant, agent, aged));
    assertThat(again).hasSize(1);
    assertThat(args(again.get(0))).containsEntry("TaskId", id).containsEntry("FixedTriggerDuration", "1200")
        .containsEntry("TaskStartTime", String.valueOf(aged));
    assertThat(updateTime(again.get(0))).isGreaterThan(aged);
    assertThat(commands(poll(sextant, agent, updateTime(again.get(0))))).isEmpty();

    assertThat(keep("no-such-task").get("errorReason").asText()).isEqualTo("profiling task not exists");
    String cpu = createdId(createFixed(sextant, svc, "OFF_CPU", 60, ""));
    assertThat(keep(cpu).get("errorReason").asText()).isEqualTo("current task is not a \"NETWORK\" task");
  }

  @Test
  void flameGraphsAddUpTheSamplesSentOverGrpc() throws Exception {
    String svc = service("flames");
    ProcessMeta p = proc(svc, "pod-f", "java", "rover-f-" + run);
    seed(sextant, p);
    String onCpu = createdId(createFixed(sextant, svc, "ON_CPU", 60, ""));
    long start = System.currentTimeMillis() - 20_000;
    long t1 = start + 5_000;
    long t2 = start + 10_000;
    EBPFProfilingTaskMetadata first = task(onCpu, p.id(), start, t1);
    EBPFProfilingTaskMetadata second = task(onCpu, p.id(), start, t2);
    assertThat(upload(sextant, List.of(
        onCpu(first, 3, stack(PROCESS_USER_SPACE, "funcA", "main"), stack(PROCESS_KERNEL_SPACE, "kfunc", "ksys")),
        onCpu(null, 2, stack(PROCESS_USER_SPACE, "funcB", "main")),
        onCpu(null, 5, stack(PROCESS_USER_SPACE, "funcA", "main")),
        onCpu(null, 1, stack(PROCESS_USER_SPACE, "other_root")))).getCode()).isEqualTo(Status.Code.OK);
    assertThat(upload(sextant, List.of(onCpu(second, 4, stack(PROCESS_USER_SPACE, "funcB", "main"))))
        .getCode()).isEqualTo(Status.Code.OK);

    JsonNode schedules = sextant.data("{ s: queryEBPFProfilingSchedules(taskId: \"%s\") ".formatted(onCpu)
        + "{ scheduleId taskId startTime endTime process { id name serviceName instanceName labels } } }").get("s");
    assertThat(schedules).hasSize(1);
    JsonNode s = schedules.get(0);
    assertThat(s.get("startTime").asLong()).isEqualTo(start);
    assertThat(s.get("endTime").asLong()).isEqualTo(t2);
    assertThat(s.get("process").get("id").asText()).isEqualTo(p.id());
    assertThat(s.get("process").get("name").asText()).isEqualTo("java");
    assertThat(s.get("process").get("instanceName").asText()).isEqualTo("pod-f");
    String scheduleId = s.get("scheduleId").asText();

    assertThat(trees(scheduleId, start, t2 + 1000, "COUNT")).containsExactly(
        List.of("1|0|main|USER_SPACE|14", "2|1|funcA|USER_SPACE|8", "3|1|funcB|USER_SPACE|6",
            "4|2|ksys|KERNEL_SPACE|3", "5|4|kfunc|KERNEL_SPACE|3"),
        List.of("1|0|other_root|USER_SPACE|1"));
    // Only the first upload's time.
    assertThat(trees(scheduleId, t1 - 100, t1 + 100, "COUNT")).containsExactly(
        List.of("1|0|main|USER_SPACE|10", "2|1|funcA|USER_SPACE|8", "3|1|funcB|USER_SPACE|2",
            "4|2|ksys|KERNEL_SPACE|3", "5|4|kfunc|KERNEL_SPACE|3"),
        List.of("1|0|other_root|USER_SPACE|1"));
    assertThat(trees(scheduleId, t2 + 1, t2 + 5000, "COUNT")).isEmpty();

    String offCpu = createdId(createFixed(sextant, svc, "OFF_CPU", 60, ""));
    EBPFProfilingTaskMetadata off = task(offCpu, p.id(), start, t1);
    assertThat(upload(sextant, List.of(
        offCpu(off, 7, 1_500_000, stack(PROCESS_USER_SPACE, "read", "main"), stack(PROCESS_KERNEL_SPACE, "schedule")),
        offCpu(null, 2, 250_000, stack(PROCESS_USER_SPACE, "sleep", "main")))).getCode())
        .isEqualTo(Status.Code.OK);
    String offSchedule = sextant.data("{ s: queryEBPFProfilingSchedules(taskId: \"%s\") { scheduleId } }"
        .formatted(offCpu)).get("s").get(0).get("scheduleId").asText();
    assertThat(trees(offSchedule, start, t2, "COUNT")).containsExactly(List.of("1|0|main|USER_SPACE|9",
        "2|1|read|USER_SPACE|7", "3|1|sleep|USER_SPACE|2", "4|2|schedule|KERNEL_SPACE|7"));
    assertThat(trees(offSchedule, start, t2, "DURATION")).containsExactly(List.of("1|0|main|USER_SPACE|1750000",
        "2|1|read|USER_SPACE|1500000", "3|1|sleep|USER_SPACE|250000", "4|2|schedule|KERNEL_SPACE|1500000"));
  }

  @Test
  void badTasksAreRefusedWithSkyWalkingsReasons() throws Exception {
    String svc = service("refusals");
    seed(sextant, process(svc, "pod-r", "java", "rover-r-" + run, true, List.of("tier:web")));
    assertThat(createFixed(sextant, svc, "ON_CPU", 59, "").get("errorReason").asText())
        .isEqualTo("the fixed time duration must be greater than or equals 60s");
    assertThat(createFixed(sextant, svc, "ON_CPU", 60, "\"tier:db\", \"tier:web\"").get("errorReason").asText())
        .isEqualTo("The service doesn't have processes with label(s) tier:db.");
    createdId(createFixed(sextant, svc, "ON_CPU", 300, ""));
    assertThat(createFixed(sextant, svc, "ON_CPU", 60, "").get("errorReason").asText())
        .isEqualTo("Task's time range overlaps with other tasks");
    createdId(createFixed(sextant, svc, "OFF_CPU", 60, ""));

    JsonNode noProcesses = sextant.data("""
        mutation { r: createEBPFNetworkProfiling(request: {instanceId: "%s"}) { status errorReason id } }"""
        .formatted(instanceId(svc, "pod-none"))).get("r");
    assertThat(noProcesses.get("status").asBoolean()).isFalse();
    assertThat(noProcesses.get("errorReason").asText()).isEqualTo("The instance doesn't have processes.");
    JsonNode twoDefaults = sextant.data("""
        mutation { r: createEBPFNetworkProfiling(request: {instanceId: "%s", samplings: [
          {when4xx: true, when5xx: true, settings: {requireCompleteRequest: true, requireCompleteResponse: true}},
          {when4xx: true, when5xx: true, settings: {requireCompleteRequest: true, requireCompleteResponse: true}}]})
          { status errorReason } }""".formatted(instanceId(svc, "pod-r"))).get("r");
    assertThat(twoDefaults.get("errorReason").asText()).isEqualTo("already contains the default sampling config");

    JsonNode noIds = sextant.graphql("{ queryEBPFProfilingTasks { taskId } }");
    assertThat(noIds.get("errors").get(0).get("message").asText())
        .isEqualTo("please provide the service id or instance id");
  }

  @Test
  void badSamplesAreRefusedWithAClearStatusAndCounted() throws Exception {
    String svc = service("badsamples");
    ProcessMeta p = proc(svc, "pod-b", "java", "rover-b-" + run);
    seed(sextant, p);
    String id = createdId(createFixed(sextant, svc, "ON_CPU", 60, ""));
    long now = System.currentTimeMillis();
    double empty = rejected("empty_stack");
    Status status = upload(sextant, List.of(onCpu(task(id, p.id(), now, now), 1),
        onCpu(null, 1, stack(PROCESS_USER_SPACE, "ok", "main"))));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("a stack sample without symbols");
    assertThat(rejected("empty_stack")).isEqualTo(empty + 1);

    double unknown = rejected("unknown_task");
    status = upload(sextant, List.of(onCpu(task("no-such-task", p.id(), now, now), 1,
        stack(PROCESS_USER_SPACE, "main")), onCpu(null, 1, stack(PROCESS_USER_SPACE, "main"))));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("unknown profiling task id no-such-task");
    assertThat(rejected("unknown_task")).isEqualTo(unknown + 2);

    double missing = rejected("missing_task");
    status = upload(sextant, List.of(onCpu(null, 1, stack(PROCESS_USER_SPACE, "main"))));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(rejected("missing_task")).isEqualTo(missing + 1);

    double deep = rejected("too_many_symbols");
    List<String> symbols = new ArrayList<>(Collections.nCopies(1025, "f"));
    EBPFProfilingData tooDeep = onCpu(task(id, p.id(), now, now), 1,
        stack(PROCESS_USER_SPACE, symbols.toArray(String[]::new)));
    status = upload(sextant, List.of(tooDeep));
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).startsWith("1025 symbols in one stack, more than 1024");
    assertThat(rejected("too_many_symbols")).isEqualTo(deep + 1);
  }

  @Test
  void continuousProfilingTasksListWithTheirCausesRenderedAsSkyWalkingDoes() throws Exception {
    String svc = service("continuous");
    ProcessMeta p = proc(svc, "pod-c", "java", "rover-c-" + run);
    seed(sextant, p);
    long now = System.currentTimeMillis();
    ProfilingTask task = new ProfilingTask("cont-" + run, serviceId(svc), instanceId(svc, "pod-c"), p.id(),
        List.of(), "ON_CPU", ProfilingTask.CONTINUOUS_PROFILING, now, 300, now, now, "", List.of(
            new ProfilingTask.Cause("PROCESS_CPU", "", "", 75.0, 80.5),
            new ProfilingTask.Cause("HTTP_ERROR_RATE", "/api/.*", "", 10, 12.5),
            new ProfilingTask.Cause("HTTP_AVG_RESPONSE_TIME", "", "/api/orders", 100, 250.125),
            new ProfilingTask.Cause("PROCESS_THREAD_COUNT", "", "", 500, 731)));
    sextant.server.storage().management().put(TaskDocuments.KIND, task.taskId(), TaskDocuments.encode(task), 0);

    assertThat(sextant.data("{ t: queryEBPFProfilingTasks(serviceId: \"%s\") { taskId } }"
        .formatted(serviceId(svc))).get("t")).isEmpty();
    JsonNode t = sextant.data("""
        { t: queryEBPFProfilingTasks(serviceId: "%s", triggerType: CONTINUOUS_PROFILING) { taskId processId
          processName serviceInstanceName triggerType continuousProfilingCauses { type message
          singleValue { threshold current } uri { uriRegex uriPath threshold current } } } }"""
        .formatted(serviceId(svc))).get("t");
    assertThat(t).hasSize(1);
    assertThat(t.get(0).get("processId").asText()).isEqualTo(p.id());
    assertThat(t.get(0).get("processName").asText()).isEqualTo("java");
    assertThat(t.get(0).get("serviceInstanceName").asText()).isEqualTo("pod-c");
    assertThat(t.get(0).get("continuousProfilingCauses")).isEqualTo(JSON.readTree("""
        [{"type":"PROCESS_CPU","message":"PROCESS_CPU: current 80.50% >= threshold 75.00%",
          "singleValue":{"threshold":7500,"current":8050},"uri":null},
         {"type":"HTTP_ERROR_RATE","message":"HTTP_ERROR_RATE: current 12.50% >= threshold 10.00% on /api/.*",
          "singleValue":null,"uri":{"uriRegex":"/api/.*","uriPath":null,"threshold":1000,"current":1250}},
         {"type":"HTTP_AVG_RESPONSE_TIME",
          "message":"HTTP_AVG_RESPONSE_TIME: current 250.13ms >= threshold 100.00ms on /api/orders",
          "singleValue":null,"uri":{"uriRegex":null,"uriPath":"/api/orders","threshold":10000,"current":25012}},
         {"type":"PROCESS_THREAD_COUNT","message":"PROCESS_THREAD_COUNT: current 731 >= threshold 500",
          "singleValue":{"threshold":50000,"current":73100},"uri":null}]"""));
    // Rover made it itself: it is never sent back as a task to run.
    assertThat(commands(poll(sextant, "rover-c-" + run, 0))).isEmpty();
  }

  private JsonNode keep(String id) throws Exception {
    return keep(sextant, id);
  }

  private double rejected(String reason) {
    var c = sextant.server.registry().find("sextant_receiver_records_rejected").tag("receiver", "ebpf")
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  private List<List<String>> trees(String scheduleId, long from, long to, String type) throws Exception {
    return trees(sextant, scheduleId, from, to, type);
  }
}
