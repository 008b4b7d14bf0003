package io.sextant.server.rover;

import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.policyJson;
import static io.sextant.server.rover.ContinuousProfilingEndToEndTest.setPolicy;
import static io.sextant.server.rover.ProfilingEndToEnd.age;
import static io.sextant.server.rover.ProfilingEndToEnd.createFixed;
import static io.sextant.server.rover.ProfilingEndToEnd.createdId;
import static io.sextant.server.rover.ProfilingEndToEnd.keep;
import static io.sextant.server.rover.ProfilingEndToEnd.trees;
import static io.sextant.server.rover.ProfilingEndToEnd.updateTime;
import static io.sextant.server.rover.RoverClient.entity;
import static io.sextant.server.rover.RoverClient.pod;
import static io.sextant.server.rover.RoverNetworkEndToEnd.answer;
import static io.sextant.server.rover.RoverNetworkEndToEnd.batch;
import static io.sextant.server.rover.RoverNetworkEndToEnd.calls;
import static io.sextant.server.rover.RoverNetworkEndToEnd.collection;
import static io.sextant.server.rover.RoverNetworkEndToEnd.histogram;
import static io.sextant.server.rover.RoverNetworkEndToEnd.minute;
import static io.sextant.server.rover.RoverNetworkEndToEnd.nodes;
import static io.sextant.server.rover.RoverNetworkEndToEnd.rel;
import static io.sextant.server.rover.RoverNetworkEndToEnd.relation;
import static io.sextant.server.rover.RoverNetworkEndToEnd.remoteServer;
import static io.sextant.server.rover.RoverNetworkEndToEnd.single;
import static io.sextant.server.rover.RoverNetworkEndToEnd.topology;
import static io.sextant.server.rover.RoverNetworkEndToEnd.with;
import static io.sextant.server.rover.RoverProcessesEndToEnd.await;
import static io.sextant.server.rover.RoverProfiling.args;
import static io.sextant.server.rover.RoverProfiling.onCpu;
import static io.sextant.server.rover.RoverProfiling.stack;
import static io.sextant.server.rover.RoverProfiling.task;
import static io.sextant.server.rover.RoverProfiling.upload;
import static org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType.PROCESS_KERNEL_SPACE;
import static org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType.PROCESS_USER_SPACE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.server.rover.RoverClient.Proc;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousOnCPUProfilingTask;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingReport;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingSingleValueCause;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingTriggeredMonitorType;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One SkyWalking Rover 0.7 run against Sextant, call after call in Rover's real order, with nothing
 * put into storage but what Rover's gRPC calls and the UI's GraphQL mutations put there. Two pods
 * on Rover's node, each an app and its Istio sidecar: Rover reports and pings them, polls for
 * tasks, runs an ON_CPU task created through GraphQL and uploads its stacks, runs a NETWORK task on
 * pod A and sends its meters, then follows a continuous-profiling policy and reports the task a
 * threshold triggered. Every step is read back through GraphQL with the exact values sent. The
 * task cache and Rover's polling period are real (a poll may come before the cache sees a task, as
 * Rover's do), so polls repeat until the task comes, and then must not bring it again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RoverJourney {
  public static final ObjectMapper JSON = new ObjectMapper();
  /** Keeps runs apart on a store that outlives a test class. */
  public final String run = UUID.randomUUID().toString().substring(0, 8);
  public final String namespace = "ns-" + run;
  public final String reviews = "reviews." + namespace;
  public final String ratings = "ratings." + namespace;
  public final String podA = "reviews-v1-" + run;
  public final String podB = "ratings-v1-" + run;
  public final Proc appA = pod(entity("MESH", reviews, podA, "python3", "mesh-application"), 7, "reviews", "10.1.0.5",
      "python3 reviews.py 9080", true);
  public final Proc envoyA =
      pod(entity("MESH_DP", reviews, podA, "envoy", "mesh-envoy"), 101, "istio-proxy", "10.1.0.5",
      "/usr/local/bin/envoy -c /etc/istio/proxy/envoy-rev.json", true);
  public final Proc appB = pod(entity("MESH", ratings, podB, "node", "mesh-application"), 9, "ratings", "10.1.0.6",
      "node ratings.js 9080", true);
  public final Proc envoyB =
      pod(entity("MESH_DP", ratings, podB, "envoy", "mesh-envoy"), 102, "istio-proxy", "10.1.0.6",
      "/usr/local/bin/envoy -c /etc/istio/proxy/envoy-rev.json", true);
  public final List<Proc> node = List.of(appA, envoyA, appB, envoyB);
  public final String appAId = processId(appA);
  public final String envoyAId = processId(envoyA);
  public final String remoteA = ProcessIds.processId(reviews, podA, ProcessIds.VIRTUAL_REMOTE);
  public final String reviewsId = EntityIds.serviceId(reviews, true);
  public final String podAId = EntityIds.instanceId(reviewsId, podA);
  public TestServer sextant;
  public RoverClient rover;
  /** The newest task update time this Rover has seen, sent with every poll. */
  public long latest;

  /** Configuration that selects the storage backend under test. */
  protected abstract Map<String, String> storage();

  @BeforeAll
  public void start() {
    Map<String, String> config = new HashMap<>(storage());
    // Rover sees a policy change within this time (SkyWalking's 60 s would only slow the test).
    config.put("receiver.ebpf.continuousPolicyCacheSeconds", "1");
    sextant = new TestServer(config);
    rover = new RoverClient(sextant.grpcPort, "rover-" + run);
  }

  @AfterAll
  public void stop() {
    sextant.close();
  }

  @Test
  public void roversRunFromDiscoveryToContinuousProfiling() throws Exception {
    discovery();
    onCpuProfiling();
    networkProfiling();
    continuousProfiling();

    rover.keepAlive(node);
    sextant.flush();
    JsonNode alive = sextant.data("{ p: listProcesses(duration: " + minute(System.currentTimeMillis())
        + ", instanceId: \"" + podAId + "\") { id name detectType } }").get("p");
    assertThat(alive.findValuesAsText("id")).containsExactlyInAnyOrder(appAId, envoyAId, remoteA);
    assertThat(alive.findValuesAsText("name")).containsExactlyInAnyOrder("python3", "envoy",
        ProcessIds.VIRTUAL_REMOTE);
  }

  /** Rover's first poll (no process yet), its report, the poll after it, a keep-alive, the policy poll. */
  private void discovery() throws Exception {
    assertThat(poll().getCommandsList()).isEmpty();
    List<EBPFProcessDownstream> ids = rover.report(node).getProcessesList();
    assertThat(ids).extracting(EBPFProcessDownstream::getProcessId)
        .containsExactly(appAId, envoyAId, processId(appB), processId(envoyB));
    for (int i = 0; i < node.size(); i++) {
      assertThat(ids.get(i).getK8SProcess().getPid()).isEqualTo(node.get(i).pid());
      assertThat(ids.get(i).getK8SProcess().getEntityMetadata()).isEqualTo(node.get(i).entity());
    }
    assertThat(poll().getCommandsList()).isEmpty();
    assertThat(rover.keepAlive(node).getCommandsList()).isEmpty();
    // Neither service has a policy: nothing to tell Rover.
    assertThat(policies(reviews, "", ratings, "").getCommandsList()).isEmpty();
  }

  /** A 60 s ON_CPU task for the reviews service, polled, run, uploaded, analysed. */
  private void onCpuProfiling() throws Exception {
    String id = createdId(createFixed(sextant, reviews, "ON_CPU", 60, ""));
    List<Command> delivered = pollUntilDelivered();
    // One command per profilable process of the service: pod A's app and sidecar, each once.
    assertThat(delivered).extracting(c -> args(c).get("ProcessId")).containsExactlyInAnyOrder(appAId, envoyAId);
    for (Command c : delivered) {
      assertThat(c.getCommand()).isEqualTo("EBPFProfilingTaskQuery");
      assertThat(args(c)).containsEntry("TaskId", id).containsEntry("TriggerType", "FIXED_TIME")
          .containsEntry("TargetType", "ON_CPU").containsEntry("FixedTriggerDuration", "60");
    }
    assertNothingMoreToPoll();

    // Rover's first flush right after starting the task has no data; later ones stacks, the task on
    // the first message of each flush only.
    long start = System.currentTimeMillis();
    assertThat(upload(sextant, List.of()).getCode()).isEqualTo(Status.Code.OK);
    EBPFProfilingTaskMetadata first = task(id, appAId, start, start + 5_000);
    assertThat(upload(sextant, List.of(
        onCpu(first, 3, stack(PROCESS_USER_SPACE, "busy_loop", "main", "__libc_init_first"),
            stack(PROCESS_KERNEL_SPACE, "finish_task_switch.isra.0", "__schedule", "__x64_sys_clock_nanosleep")),
        onCpu(null, 5, stack(PROCESS_USER_SPACE, "busy_loop", "main", "__libc_init_first")))).getCode())
        .isEqualTo(Status.Code.OK);
    EBPFProfilingTaskMetadata second = task(id, appAId, start, start + 10_000);
    assertThat(upload(sextant, List.of(
        onCpu(second, 2, stack(PROCESS_USER_SPACE, "nanosleep", "main", "__libc_init_first")))).getCode())
        .isEqualTo(Status.Code.OK);

    JsonNode[] schedules = new JsonNode[1];
    await(() -> {
      schedules[0] = sextant.data("{ s: queryEBPFProfilingSchedules(taskId: \"" + id + "\") { scheduleId "
          + "startTime endTime process { id name } } }").get("s");
      return schedules[0].size() == 1 && schedules[0].get(0).get("endTime").asLong() == start + 10_000;
    });
    JsonNode s = schedules[0].get(0);
    assertThat(s.get("startTime").asLong()).isEqualTo(start);
    assertThat(s.get("process").get("id").asText()).isEqualTo(appAId);
    assertThat(s.get("process").get("name").asText()).isEqualTo("python3");
    // 3 + 5 + 2 samples; the kernel stack under the user stack it interrupted.
    assertThat(trees(sextant, s.get("scheduleId").asText(), start, start + 11_000, "COUNT")).containsExactly(
        List.of("1|0|__libc_init_first|USER_SPACE|10", "2|1|main|USER_SPACE|10", "3|2|busy_loop|USER_SPACE|8",
            "4|2|nanosleep|USER_SPACE|2", "5|3|__x64_sys_clock_nanosleep|KERNEL_SPACE|3",
            "6|5|__schedule|KERNEL_SPACE|3", "7|6|finish_task_switch.isra.0|KERNEL_SPACE|3"));
  }

  /** A NETWORK task on pod A: polled, its meters sent, its topology and metrics read, kept alive. */
  private void networkProfiling() throws Exception {
    JsonNode created = sextant.data("""
        mutation { r: createEBPFNetworkProfiling(request: {instanceId: "%s", samplings: [{uriRegex: "/ratings/.*",
          minDuration: 0, when4xx: true, when5xx: true, settings: {requireCompleteRequest: true,
          maxRequestSize: 2048, requireCompleteResponse: false}}]})
          { status errorReason id } }""".formatted(podAId)).get("r");
    String id = createdId(created);
    List<Command> delivered = pollUntilDelivered();
    assertThat(delivered).hasSize(1);
    Map<String, String> a = args(delivered.get(0));
    assertThat(List.of(a.get("ProcessId").split(","))).containsExactlyInAnyOrder(appAId, envoyAId);
    assertThat(a).containsEntry("TaskId", id).containsEntry("TargetType", "NETWORK")
        .containsEntry("TriggerType", "FIXED_TIME").containsEntry("FixedTriggerDuration", "600")
        .containsEntry("ExtensionConfigJSON", "{\"NetworkSamplings\":[{\"URIRegex\":\"/ratings/.*\","
            + "\"MinDuration\":0,\"When4xx\":true,\"When5xx\":true,\"Settings\":{\"RequireCompleteRequest\":true,"
            + "\"MaxRequestSize\":2048,\"RequireCompleteResponse\":false}}]}");
    assertNothingMoreToPoll();

    // Two flushes, 2 s apart, in one minute (Rover's clock at flush time).
    long now = System.currentTimeMillis();
    if (now % 60_000 > 50_000) {
      Thread.sleep(60_000 - now % 60_000 + 100); // into the next minute: the wall clock is the point
    }
    long t1 = System.currentTimeMillis();
    long t2 = t1 + 2_000;
    // The app calls its sidecar (both sides seen), the sidecar calls pod B's address over mTLS.
    assertThat(batch(sextant, List.of(collection(t1, reviews, podA,
        single("rover_net_p_client_write_counts_counter", 40, rel("client", appAId, envoyAId, "http", "false")),
        single("rover_net_p_client_write_bytes_counter", 8192, rel("client", appAId, envoyAId, "http", "false")),
        histogram("rover_net_p_client_write_rtt_histogram", rel("client", appAId, envoyAId, "http", "false"),
            50, 4, 10, 30, 100, 6),
        single("rover_net_p_http1_response_status_counter", 38,
            with(rel("client", appAId, envoyAId, "http", "false"), "code", "200")),
        single("rover_net_p_http1_response_status_counter", 2,
            with(rel("client", appAId, envoyAId, "http", "false"), "code", "503")),
        single("rover_net_p_server_read_counts_counter", 40, rel("server", appAId, envoyAId, "http", "false")),
        single("rover_net_p_client_write_counts_counter", 40,
            remoteServer("client", envoyAId, "10.1.0.6:9080", "unknown", "true"))))).getCode())
        .isEqualTo(Status.Code.OK);
    assertThat(batch(sextant, List.of(collection(t2, reviews, podA,
        single("rover_net_p_client_write_counts_counter", 20, rel("client", appAId, envoyAId, "http", "false")),
        single("rover_net_p_client_write_counts_counter", 20,
            remoteServer("client", envoyAId, "10.1.0.6:9080", "unknown", "true"))))).getCode())
        .isEqualTo(Status.Code.OK);
    sextant.flush();

    String minute = minute(t1);
    JsonNode t = topology(sextant, podAId, minute, 3);
    assertThat(nodes(t)).containsExactly(
        remoteA + " UNKNOWN_REMOTE " + reviews + "/" + podA + " virtual",
        envoyAId + " envoy " + reviews + "/" + podA + " real",
        appAId + " python3 " + reviews + "/" + podA + " real");
    assertThat(calls(t)).containsExactlyInAnyOrder(
        appAId + "-" + envoyAId + " " + appAId + "->" + envoyAId + " [CLIENT, SERVER] [http] [http]",
        envoyAId + "-" + remoteA + " " + envoyAId + "->" + remoteA + " [CLIENT] [tls] []");
    String appToSidecar = relation(reviews, podA, "python3", reviews, podA, "envoy");
    assertThat(answer(sextant, "process_relation_client_write_cpm", appToSidecar, minute))
        .containsExactly("{}=[60]");
    assertThat(answer(sextant, "process_relation_client_write_total_bytes", appToSidecar, minute))
        .containsExactly("{}=[8192]");
    assertThat(answer(sextant, "process_relation_server_read_cpm", appToSidecar, minute))
        .containsExactly("{}=[40]");
    assertThat(answer(sextant, "process_relation_client_write_rtt_time_percentile", appToSidecar, minute))
        .containsExactly("{p=50}=[10]", "{p=70}=[10]", "{p=90}=[100]", "{p=99}=[100]");
    assertThat(answer(sextant, "process_relation_http1_response_status_cpm", appToSidecar, minute))
        .containsExactly("{code=200}=[38]", "{code=503}=[2]");
    assertThat(answer(sextant, "process_relation_client_write_cpm",
        relation(reviews, podA, "envoy", reviews, podA, ProcessIds.VIRTUAL_REMOTE), minute))
        .containsExactly("{}=[60]");

    // The UI keeps the task alive while its page is open: nothing changes with ten minutes left;
    // in its last minute it is extended and Rover gets it once more.
    assertThat(keep(sextant, id).get("status").asBoolean()).isTrue();
    assertNothingMoreToPoll();
    long aged = age(sextant, id, 590_000);
    JsonNode kept = keep(sextant, id);
    assertThat(kept.get("status").asBoolean()).as(kept.toString()).isTrue();
    List<Command> again = pollUntilDelivered();
    assertThat(again).hasSize(1);
    assertThat(args(again.get(0))).containsEntry("TaskId", id).containsEntry("FixedTriggerDuration", "1200")
        .containsEntry("TaskStartTime", String.valueOf(aged));
    assertNothingMoreToPoll();
  }

  /** A policy for reviews reaches Rover; Rover reports the task a threshold triggered. */
  private void continuousProfiling() throws Exception {
    assertThat(setPolicy(sextant, reviewsId, "{targetType: ON_CPU, checkItems: [{type: PROCESS_CPU, "
        + "threshold: \"0\", period: 10, count: 3}]}")).isEqualTo(ContinuousProfilingEndToEndTest.OK);
    Commands[] answer = new Commands[1];
    await(() -> {
      answer[0] = policies(reviews, "", ratings, "");
      return answer[0].getCommandsCount() > 0;
    });
    String json = policyJson(answer[0]);
    String uuid = JSON.readTree(json).get(0).get("UUID").asText();
    assertThat(json).isEqualTo("[{\"ServiceName\":\"" + reviews + "\",\"UUID\":\"" + uuid + "\",\"Profiling\":{"
        + "\"ON_CPU\":{\"PROCESS_CPU\":{\"Threshold\":\"0\",\"Period\":10,\"Count\":3}}}}]");
    assertThat(policies(reviews, uuid, ratings, "").getCommandsList()).isEmpty();

    long before = System.currentTimeMillis();
    Commands reported = ContinuousProfilingEndToEndTest.rover(sextant).reportProfilingTask(
        ContinuousProfilingReport.newBuilder().setLayer("MESH").setServiceName(reviews).setInstanceName(podA)
            .setProcessName("python3").setDuration(600).setOnCPU(ContinuousOnCPUProfilingTask.getDefaultInstance())
            .addCauses(ContinuousProfilingCause.newBuilder()
                .setType(ContinuousProfilingTriggeredMonitorType.ProcessCPU)
                .setSingleValue(ContinuousProfilingSingleValueCause.newBuilder().setThreshold(0).setCurrent(37.5)))
            .build());
    assertThat(reported.getCommandsList()).hasSize(1);
    assertThat(reported.getCommands(0).getCommand()).isEqualTo("ContinuousProfilingReportTask");
    String taskId = args(reported.getCommands(0)).get("TaskId");

    JsonNode[] listed = new JsonNode[1];
    await(() -> {
      listed[0] = sextant.data("""
          { t: queryEBPFProfilingTasks(serviceId: "%s", triggerType: CONTINUOUS_PROFILING) { taskId processId
            processName serviceInstanceName triggerType targetType fixedTriggerDuration taskStartTime
            continuousProfilingCauses { type message singleValue { threshold current } } } }"""
          .formatted(reviewsId)).get("t");
      return listed[0].size() == 1;
    });
    JsonNode t = listed[0].get(0);
    long started = t.get("taskStartTime").asLong();
    assertThat(started).isBetween(before, System.currentTimeMillis());
    assertThat(t).isEqualTo(JSON.readTree("""
        {"taskId":"%s","processId":"%s","processName":"python3","serviceInstanceName":"%s",
         "triggerType":"CONTINUOUS_PROFILING","targetType":"ON_CPU","fixedTriggerDuration":600,
         "taskStartTime":%d,"continuousProfilingCauses":[{"type":"PROCESS_CPU",
         "message":"PROCESS_CPU: current 37.50%% >= threshold 0.00%%","singleValue":{"threshold":0,"current":3750}}]}"""
        .formatted(taskId, appAId, podA, started)));
    // Rover started it itself: never sent back as a task to run.
    assertNothingMoreToPoll();

    String monitoring = "{ m: queryContinuousProfilingMonitoringInstances(serviceId: \"" + reviewsId
        + "\", target: ON_CPU) { id name triggeredCount lastTriggerTimestamp processes { id name detectType "
        + "labels triggeredCount lastTriggerTimestamp } } }";
    JsonNode[] instances = new JsonNode[1];
    await(() -> {
      instances[0] = sextant.data(monitoring).get("m");
      return instances[0].size() == 1 && instances[0].get(0).get("triggeredCount").asInt() == 1;
    });
    assertThat(instances[0]).isEqualTo(JSON.readTree("""
        [{"id":"%s","name":"%s","triggeredCount":1,"lastTriggerTimestamp":%d,"processes":[
          {"id":"%s","name":"envoy","detectType":"KUBERNETES","labels":["mesh-envoy"],"triggeredCount":0,
           "lastTriggerTimestamp":null},
          {"id":"%s","name":"python3","detectType":"KUBERNETES","labels":["mesh-application"],"triggeredCount":1,
           "lastTriggerTimestamp":%d}]}]""".formatted(podAId, podA, started, envoyAId, appAId, started)));
  }

  // --- Rover's polls

  public Commands poll() {
    return RoverProfiling.poll(sextant, rover.agentId(), latest);
  }

  public Commands policies(String... serviceAndUuid) {
    return ContinuousProfilingEndToEndTest.poll(sextant, serviceAndUuid);
  }

  /**
   * Polls as Rover does (each poll with the newest update time seen) until a poll brings commands,
   * and returns them: the task cache and the store's refresh may hide a new task for a poll or two.
   */
  public List<Command> pollUntilDelivered() throws Exception {
    List<Command> got = new ArrayList<>();
    await(() -> {
      got.addAll(poll().getCommandsList());
      return !got.isEmpty();
    });
    got.forEach(c -> latest = Math.max(latest, updateTime(c)));
    return got;
  }

  /** Polls spanning more than a task-cache period bring nothing new. */
  public void assertNothingMoreToPoll() throws Exception {
    Poll.stays("nothing more to poll", Duration.ofMillis(1_500), () -> poll().getCommandsList().isEmpty());
  }

  public static String processId(Proc p) {
    return RoverProcessesEndToEnd.processId(p);
  }
}
