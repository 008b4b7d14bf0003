package io.sextant.server.rover;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.server.testing.TestServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFOffCPUProfiling;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFOnCPUProfiling;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskQuery;

/** Plays SkyWalking Rover's part of {@code EBPFProfilingService} over real gRPC, from the published stubs. */
public final class RoverProfiling {
  private RoverProfiling() {}

  public static String serviceId(String service) {
    return EntityIds.serviceId(service, true);
  }

  public static String instanceId(String service, String instance) {
    return EntityIds.instanceId(serviceId(service), instance);
  }

  /** A Rover process, as the process receiver would have stored it, pinging this minute. */
  public static ProcessMeta process(String service, String instance, String name, String agent, boolean supported,
      List<String> labels) {
    String instanceId = instanceId(service, instance);
    long minute = Long.parseLong(java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmm")
        .format(java.time.LocalDateTime.now()));
    return new ProcessMeta(ProcessIds.processId(instanceId, name), serviceId(service), instanceId, name,
        "K8S_SERVICE", agent, "KUBERNETES", labels, Map.of("pid", "42"), supported, minute, minute);
  }

  public static Commands poll(TestServer server, String agent, long latestUpdateTime) {
    return GrpcClients.builder("http://127.0.0.1:" + server.grpcPort)
        .build(EBPFProfilingServiceGrpc.EBPFProfilingServiceBlockingStub.class)
        .queryTasks(EBPFProfilingTaskQuery.newBuilder().setRoverInstanceId(agent)
            .setLatestUpdateTime(latestUpdateTime).build());
  }

  public static Status upload(TestServer server, List<EBPFProfilingData> messages) throws Exception {
    EBPFProfilingServiceGrpc.EBPFProfilingServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + server.grpcPort)
        .build(EBPFProfilingServiceGrpc.EBPFProfilingServiceStub.class);
    return TestServer.clientStream(stub::collectProfilingData, messages);
  }

  public static Map<String, String> args(Command c) {
    Map<String, String> m = new LinkedHashMap<>();
    for (KeyStringValuePair kv : c.getArgsList()) {
      m.put(kv.getKey(), kv.getValue());
    }
    return m;
  }

  public static List<String> argNames(Command c) {
    List<String> names = new ArrayList<>();
    c.getArgsList().forEach(kv -> names.add(kv.getKey()));
    return names;
  }

  public static EBPFProfilingTaskMetadata task(String taskId, String processId, long start, long now) {
    return EBPFProfilingTaskMetadata.newBuilder().setTaskId(taskId).setProcessId(processId)
        .setProfilingStartTime(start).setCurrentTime(now).build();
  }

  public static EBPFProfilingStackMetadata stack(EBPFProfilingStackType type, String... symbols) {
    return EBPFProfilingStackMetadata.newBuilder().setStackType(type).setStackId(symbols.length)
        .addAllStackSymbols(List.of(symbols)).build();
  }

  public static EBPFProfilingData onCpu(EBPFProfilingTaskMetadata task, int dumps,
      EBPFProfilingStackMetadata... stacks) {
    EBPFProfilingData.Builder b = EBPFProfilingData.newBuilder()
        .setOnCPU(EBPFOnCPUProfiling.newBuilder().addAllStacks(List.of(stacks)).setDumpCount(dumps));
    if (task != null) {
      b.setTask(task);
    }
    return b.build();
  }

  public static EBPFProfilingData offCpu(EBPFProfilingTaskMetadata task, int switches, long nanos,
      EBPFProfilingStackMetadata... stacks) {
    EBPFProfilingData.Builder b = EBPFProfilingData.newBuilder().setOffCPU(EBPFOffCPUProfiling.newBuilder()
        .addAllStacks(List.of(stacks)).setSwitchCount(switches).setDuration(nanos));
    if (task != null) {
      b.setTask(task);
    }
    return b.build();
  }
}
