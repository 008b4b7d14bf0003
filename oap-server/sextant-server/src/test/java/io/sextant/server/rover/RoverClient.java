package io.sextant.server.rover;

import com.linecorp.armeria.client.grpc.GrpcClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFHostProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFKubernetesProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkg;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkgList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessProperties;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessReportList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;

/**
 * Plays SkyWalking Rover 0.7 over real gRPC with the published protocol classes: its process
 * reports (the properties its Kubernetes finder sends) and its keep-alive pings (only {@code
 * support_ebpf_profiling}), for one agent id.
 */
public final class RoverClient {
  private final EBPFProcessServiceGrpc.EBPFProcessServiceBlockingStub processes;
  private final String agentId;

  public RoverClient(int grpcPort, String agentId) {
    this.processes = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
        .build(EBPFProcessServiceGrpc.EBPFProcessServiceBlockingStub.class);
    this.agentId = agentId;
  }

  public String agentId() {
    return agentId;
  }

  /** A process as Rover's analyzers name it (layer, {@code service.namespace}, pod, exe name, labels). */
  public record Proc(EBPFProcessEntityMetadata entity, int pid, boolean kubernetes, Map<String, String> properties,
      boolean profilable) {
    /** The properties Rover reports, in its order, {@code support_ebpf_profiling} last. */
    public List<KeyStringValuePair> reported() {
      List<KeyStringValuePair> out = new ArrayList<>();
      properties.forEach((k, v) -> out.add(kv(k, v)));
      out.add(kv("support_ebpf_profiling", String.valueOf(profilable)));
      return out;
    }
  }

  public static EBPFProcessEntityMetadata entity(String layer, String service, String instance, String process,
      String... labels) {
    return EBPFProcessEntityMetadata.newBuilder().setLayer(layer).setServiceName(service).setInstanceName(instance)
        .setProcessName(process).addAllLabels(List.of(labels)).build();
  }

  /** A container's process as Rover's Kubernetes finder reports it. */
  public static Proc pod(EBPFProcessEntityMetadata entity, int pid, String container, String podIp,
      String commandLine, boolean profilable) {
    return new Proc(entity, pid, true, orderedMap("host_ip", "10.0.0.7", "container_ip", podIp,
        "container_name", container, "pod_name", entity.getInstanceName(), "pid", String.valueOf(pid),
        "command_line", commandLine), profilable);
  }

  /** A process of a host (a virtual machine), as SkyWalking's host process metadata carries it. */
  public static Proc host(EBPFProcessEntityMetadata entity, int pid, String commandLine, boolean profilable) {
    return new Proc(entity, pid, false, orderedMap("host_ip", "10.0.0.9", "pid", String.valueOf(pid),
        "command_line", commandLine), profilable);
  }

  private static Map<String, String> orderedMap(String... kv) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  public static KeyStringValuePair kv(String key, String value) {
    return KeyStringValuePair.newBuilder().setKey(key).setValue(value).build();
  }

  public static EBPFProcessProperties properties(Proc p) {
    EBPFProcessProperties.Builder b = EBPFProcessProperties.newBuilder();
    if (p.kubernetes()) {
      b.setK8SProcess(EBPFKubernetesProcessMetadata.newBuilder().setEntity(p.entity()).setPid(p.pid())
          .addAllProperties(p.reported()));
    } else {
      b.setHostProcess(EBPFHostProcessMetadata.newBuilder().setEntity(p.entity()).setPid(p.pid())
          .addAllProperties(p.reported()));
    }
    return b.build();
  }

  /** {@code reportProcesses}, as Rover sends it on discovery and every tenth heartbeat. */
  public EBPFReportProcessDownstream report(List<Proc> procs) {
    EBPFProcessReportList.Builder list = EBPFProcessReportList.newBuilder().setEbpfAgentID(agentId);
    procs.forEach(p -> list.addProcesses(properties(p)));
    return processes.reportProcesses(list.build());
  }

  /** {@code keepAlive} for reported processes, as Rover sends it every heartbeat (20 s). */
  public Commands keepAlive(List<Proc> procs) {
    EBPFProcessPingPkgList.Builder list = EBPFProcessPingPkgList.newBuilder().setEbpfAgentID(agentId);
    procs.forEach(p -> list.addProcesses(EBPFProcessPingPkg.newBuilder().setEntityMetadata(p.entity())
        .addProperties(kv("support_ebpf_profiling", String.valueOf(p.profilable())))));
    return processes.keepAlive(list.build());
  }
}
