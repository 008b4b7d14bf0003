package io.sextant.receiver.ebpf.process;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.receiver.ProcessRegistry;
import io.sextant.api.receiver.ProcessRegistry.AliveProcess;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFHostProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFKubernetesProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessDownstream;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkg;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessPingPkgList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessProperties;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessReportList;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;

/**
 * Rover's process registration ({@code skywalking.v3.EBPFProcessService}), as SkyWalking 10.1
 * answers it. {@code reportProcesses} stores the discovered host ({@code VM}) and Kubernetes
 * processes and answers each with its id, pid and entity echoed (a process left out of the answer is
 * one Rover stops reporting); {@code keepAlive} marks processes alive and registers their service
 * (with the layer Rover gives) and instance, answering no commands. Core's {@link ProcessRegistry}
 * writes them, each at most once a minute.
 * A call with a bad entity is refused whole ({@code INVALID_ARGUMENT}, each bad entity counted by
 * reason); processes past the per-service limit are left out (counted) and the rest is served.
 */
public final class ProcessService extends EBPFProcessServiceGrpc.EBPFProcessServiceImplBase {
  private final ProcessRegistry registry;
  private final BlockingCalls calls;
  private final ReceiverMetrics metrics;
  private final ProcessServiceConfig config;
  private final ProcessEntities entities;
  private final TimeBuckets time;
  private final ServiceProcessLimit limit;

  public ProcessService(ProcessRegistry registry, BlockingCalls calls, ReceiverMetrics metrics, int maxStringLength,
      ProcessServiceConfig config, TimeBuckets time) {
    this.registry = registry;
    this.calls = calls;
    this.metrics = metrics;
    this.config = config;
    this.entities = new ProcessEntities(maxStringLength);
    this.time = time;
    this.limit = new ServiceProcessLimit(config.maxProcessesPerService(), config.maxTrackedEntities());
  }

  @Override
  public void reportProcesses(EBPFProcessReportList request, StreamObserver<EBPFReportProcessDownstream> response) {
    calls.unary("reportProcesses", response, () -> report(request));
  }

  @Override
  public void keepAlive(EBPFProcessPingPkgList request, StreamObserver<Commands> response) {
    calls.unary("keepAlive", response, () -> ping(request));
  }

  private EBPFReportProcessDownstream report(EBPFProcessReportList request) {
    checkCount(request.getProcessesCount());
    List<EBPFProcessProperties> known = request.getProcessesList().stream()
        .filter(p -> p.hasHostProcess() || p.hasK8SProcess()).toList(); // SkyWalking skips the others
    checkAll(known.stream().map(p -> p.hasHostProcess()
        ? Map.entry(p.getHostProcess().getEntity(), p.getHostProcess().getPropertiesList())
        : Map.entry(p.getK8SProcess().getEntity(), p.getK8SProcess().getPropertiesList())).toList());
    long now = time.nowMillis();
    long minute = time.minuteBucket(now);
    EBPFReportProcessDownstream.Builder answer = EBPFReportProcessDownstream.newBuilder();
    List<ProcessMeta> processes = new ArrayList<>();
    for (EBPFProcessProperties p : known) {
      boolean host = p.hasHostProcess();
      EBPFProcessEntityMetadata entity = host ? p.getHostProcess().getEntity() : p.getK8SProcess().getEntity();
      if (!admitted(entity, now)) {
        continue;
      }
      ProcessMeta process = ProcessEntities.process(entity,
          host ? p.getHostProcess().getPropertiesList() : p.getK8SProcess().getPropertiesList(),
          request.getEbpfAgentID(), host ? "VM" : "KUBERNETES", minute);
      processes.add(process);
      EBPFProcessDownstream.Builder d = EBPFProcessDownstream.newBuilder().setProcessId(process.id());
      if (host) {
        d.setHostProcess(EBPFHostProcessDownstream.newBuilder().setPid(p.getHostProcess().getPid())
            .setEntityMetadata(entity));
      } else {
        d.setK8SProcess(EBPFKubernetesProcessDownstream.newBuilder().setPid(p.getK8SProcess().getPid())
            .setEntityMetadata(entity));
      }
      answer.addProcesses(d);
    }
    registry.report(processes);
    metrics.accepted(processes.size());
    return answer.build();
  }

  private Commands ping(EBPFProcessPingPkgList request) {
    checkCount(request.getProcessesCount());
    checkAll(request.getProcessesList().stream()
        .map(p -> Map.entry(p.getEntityMetadata(), p.getPropertiesList())).toList());
    long now = time.nowMillis();
    long minute = time.minuteBucket(now);
    List<AliveProcess> alive = new ArrayList<>();
    for (EBPFProcessPingPkg p : request.getProcessesList()) {
      EBPFProcessEntityMetadata e = p.getEntityMetadata();
      if (admitted(e, now)) {
        // Rover's ping carries only support_ebpf_profiling; its full properties come in reportProcesses
        // (on discovery and every tenth heartbeat). Stored, the ping's one property would replace them
        // (the newest non-empty properties describe a process), so a ping says nothing about them.
        alive.add(new AliveProcess(ProcessEntities.process(e, List.of(), request.getEbpfAgentID(), "", minute),
            e.getServiceName(), e.getInstanceName()));
      }
    }
    registry.alive(alive);
    metrics.accepted(alive.size());
    return Commands.getDefaultInstance();
  }

  private boolean admitted(EBPFProcessEntityMetadata e, long nowMillis) {
    if (limit.admit(ProcessEntities.serviceId(e), ProcessEntities.processId(e), nowMillis / 60_000)) {
      return true;
    }
    metrics.rejected("too_many_processes_per_service", 1);
    return false;
  }

  private void checkCount(int count) {
    if (count > config.maxProcessesPerReport()) {
      metrics.rejected("too_many_processes", 1);
      throw Status.RESOURCE_EXHAUSTED.withDescription(count + " processes in one call; at most "
          + config.maxProcessesPerReport() + " (receiver.ebpf.maxProcessesPerReport)").asRuntimeException();
    }
  }

  /** Refuses the call when any entity is bad, counting each bad one by its reason. */
  private void checkAll(List<Map.Entry<EBPFProcessEntityMetadata, List<KeyStringValuePair>>> all) {
    ProcessEntities.Refused first = null;
    int bad = 0;
    for (Map.Entry<EBPFProcessEntityMetadata, List<KeyStringValuePair>> e : all) {
      try {
        entities.check(e.getKey(), e.getValue());
      } catch (ProcessEntities.Refused r) {
        metrics.rejected(r.reason, 1);
        bad++;
        first = first == null ? r : first;
      }
    }
    if (first != null) {
      throw Status.INVALID_ARGUMENT.withDescription("rejected " + bad + " of " + all.size() + " processes; first: "
          + first.reason + ": " + first.getMessage()).asRuntimeException();
    }
  }
}
