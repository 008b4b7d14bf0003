package io.sextant.receiver.ebpf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.testkit.receiver.ServedReceiver;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFKubernetesProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkg;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkgList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessProperties;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessReportList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingPolicyQuery;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServicePolicyQuery;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Rover receiver tested alone: its process, task and policy services over real gRPC with the
 * published protocol classes, against core's ports held in memory. What storage makes of the
 * registrations is core's business (its own tests, and the server's end-to-end ones).
 */
class RoverAgentServicesTest {
  private static final String AGENT = "rover-1";

  private final ServedReceiver served = new ServedReceiver(new EbpfReceiverFactory(),
      Map.of("receiver.ebpf.profiling.taskCacheMillis", "0"));
  private final EBPFProcessServiceGrpc.EBPFProcessServiceBlockingStub processes =
      GrpcClients.builder(served.uri()).build(EBPFProcessServiceGrpc.EBPFProcessServiceBlockingStub.class);
  private final EBPFProfilingServiceGrpc.EBPFProfilingServiceBlockingStub profiling =
      GrpcClients.builder(served.uri()).build(EBPFProfilingServiceGrpc.EBPFProfilingServiceBlockingStub.class);
  private final ContinuousProfilingServiceGrpc.ContinuousProfilingServiceBlockingStub continuous = GrpcClients
      .builder(served.uri()).build(ContinuousProfilingServiceGrpc.ContinuousProfilingServiceBlockingStub.class);

  @AfterEach
  void stop() {
    served.close();
  }

  @AfterAll
  static void awaitStopped() {
    ServedReceiver.awaitAllStopped();
  }

  @Test
  void aReportRegistersEachProcessUnderSkyWalkingsIdAndEchoesIt() {
    EBPFReportProcessDownstream answer = processes.reportProcesses(report(
        pod("reviews", "reviews-1", "envoy", 7, true), pod("reviews", "reviews-1", "java", 8, false)));

    String instanceId = EntityIds.instanceId(EntityIds.serviceId("reviews", true), "reviews-1");
    assertThat(answer.getProcessesList()).extracting(d -> d.getProcessId(), d -> d.getK8SProcess().getPid())
        .containsExactly(tuple(ProcessIds.processId(instanceId, "envoy"), 7),
            tuple(ProcessIds.processId(instanceId, "java"), 8));
    assertThat(served.agents.reported()).extracting(ProcessMeta::name, ProcessMeta::agentId, ProcessMeta::detectType,
        ProcessMeta::profilingSupported).containsExactly(tuple("envoy", AGENT,
            "KUBERNETES", true), tuple("java", AGENT, "KUBERNETES", false));
  }

  @Test
  void aPingHandsTheRegistryEachProcessWithTheNamesOfItsServiceAndInstance() {
    processes.keepAlive(EBPFProcessPingPkgList.newBuilder().setEbpfAgentID(AGENT)
        .addProcesses(EBPFProcessPingPkg.newBuilder().setEntityMetadata(entity("reviews", "reviews-1", "envoy")))
        .build());

    assertThat(served.agents.alive()).singleElement().satisfies(a -> {
      assertThat(a.serviceName()).isEqualTo("reviews");
      assertThat(a.instanceName()).isEqualTo("reviews-1");
      assertThat(a.process().layer()).isEqualTo("MESH");
      assertThat(a.process().properties()).as("a ping says nothing of properties").isEmpty();
    });
  }

  @Test
  void aBadEntityRefusesTheWholeReportAndRegistersNothing() {
    EBPFProcessReportList bad = report(pod("reviews", "reviews-1", "envoy", 7, true), pod("", "x-1", "sh", 9, false));

    assertThatThrownBy(() -> processes.reportProcesses(bad)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("rejected 1 of 2 processes", "missing_service");
        });
    assertThat(served.agents.reported()).isEmpty();
  }

  @Test
  void whenTheRegistryCannotWriteRoverIsToldToRetry() {
    served.agents.failing(true);

    assertThatThrownBy(() -> processes.reportProcesses(report(pod("reviews", "reviews-1", "envoy", 7, true))))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void aTaskPollAnswersTheTasksOfThisRoversProcesses() {
    processes.reportProcesses(report(pod("reviews", "reviews-1", "envoy", 7, true),
        pod("reviews", "reviews-1", "java", 8, false), pod("ratings", "ratings-1", "node", 9, true)));
    String reviews = EntityIds.serviceId("reviews", true);
    String instance = EntityIds.instanceId(reviews, "reviews-1");
    served.agents.add(task("cpu", reviews, "", ProfilingTask.ON_CPU, 100));
    served.agents.add(task("net", reviews, instance, ProfilingTask.NETWORK, 200));
    served.agents.add(task("old", reviews, "", ProfilingTask.OFF_CPU, 10));

    Commands answer = profiling.queryTasks(EBPFProfilingTaskQuery.newBuilder().setRoverInstanceId(AGENT)
        .setLatestUpdateTime(50).build());

    assertThat(answer.getCommandsList()).extracting(c -> arg(c, "TaskId"), c -> arg(c, "ProcessId")).containsExactly(
        // on-CPU: only the process that supports profiling; network: every process of the instance
        tuple("cpu", ProcessIds.processId(instance, "envoy")),
        tuple("net", ProcessIds.processId(instance, "envoy") + ","
            + ProcessIds.processId(instance, "java")));
  }

  @Test
  void aPolicyQueryIsAnsweredOnlyForServicesWhosePolicyDiffers() {
    String reviews = EntityIds.serviceId("reviews", true);
    served.agents.putPolicy(new ContinuousProfilingPolicy(reviews, "uuid-2", List.of(new ContinuousProfilingPolicy
        .Target(ProfilingTask.ON_CPU, List.of(new ContinuousProfilingPolicy.CheckItem("PROCESS_CPU", "80", 10, 3,
            null, null))))));

    Commands same = continuous.queryPolicies(policyQuery("uuid-2"));
    Commands changed = continuous.queryPolicies(policyQuery("uuid-1"));

    assertThat(same.getCommandsList()).isEmpty();
    assertThat(changed.getCommandsList()).singleElement().satisfies(c -> {
      assertThat(c.getCommand()).isEqualTo("ContinuousProfilingPolicyQuery");
      assertThat(arg(c, "ServiceWithPolicyJSON")).contains("\"ServiceName\":\"reviews\"", "uuid-2");
    });
  }

  private static ContinuousProfilingPolicyQuery policyQuery(String uuid) {
    return ContinuousProfilingPolicyQuery.newBuilder().addPolicies(ContinuousProfilingServicePolicyQuery.newBuilder()
        .setServiceName("reviews").setUuid(uuid)).build();
  }

  private static ProfilingTask task(String id, String serviceId, String instanceId, String target, long updated) {
    return new ProfilingTask(id, serviceId, instanceId, "", List.of(), target, ProfilingTask.FIXED_TIME, 1_000, 60,
        1_000, updated, "", List.of());
  }

  private static String arg(Command c, String key) {
    return c.getArgsList().stream().filter(a -> a.getKey().equals(key)).map(KeyStringValuePair::getValue)
        .findFirst().orElseThrow();
  }

  private static EBPFProcessEntityMetadata entity(String service, String instance, String process) {
    return EBPFProcessEntityMetadata.newBuilder().setLayer("MESH").setServiceName(service)
        .setInstanceName(instance).setProcessName(process).build();
  }

  private static EBPFProcessProperties pod(String service, String instance, String process, int pid,
      boolean profilable) {
    return EBPFProcessProperties.newBuilder().setK8SProcess(EBPFKubernetesProcessMetadata.newBuilder()
        .setEntity(entity(service, instance, process)).setPid(pid).addProperties(KeyStringValuePair.newBuilder()
            .setKey("support_ebpf_profiling").setValue(String.valueOf(profilable)))).build();
  }

  private static EBPFProcessReportList report(EBPFProcessProperties... processes) {
    return EBPFProcessReportList.newBuilder().setEbpfAgentID(AGENT).addAllProcesses(List.of(processes)).build();
  }
}
