package io.sextant.receiver.ebpf;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.receiver.common.ReceiverMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * (with the layer Rover gives) and instance, answering no commands.
 * A call with a bad entity is refused whole ({@code INVALID_ARGUMENT}, each bad entity counted by
 * reason); processes past the per-service limit are left out (counted) and the rest is served.
 */
final class ProcessService extends EBPFProcessServiceGrpc.EBPFProcessServiceImplBase {
  private final MetadataStore store;
  private final BlockingCalls calls;
  private final ReceiverMetrics metrics;
  private final ProcessServiceConfig config;
  private final ProcessEntities entities;
  private final TimeBuckets time;
  private final WrittenThisMinute written;
  private final ServiceProcessLimit limit;

  ProcessService(MetadataStore store, BlockingCalls calls, ReceiverMetrics metrics, int maxStringLength,
      ProcessServiceConfig config, TimeBuckets time) {
    this.store = store;
    this.calls = calls;
    this.metrics = metrics;
    this.config = config;
    this.entities = new ProcessEntities(maxStringLength);
    this.time = time;
    this.written = new WrittenThisMinute(config.maxTrackedEntities());
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
    // A report is rare (a process discovered, or Rover restarted) and carries the full
    // description: always written, and it counts as this minute's write of the process.
    List<String> keys = processes.stream().map(ProcessService::processKey).toList();
    keys.forEach(k -> written.firstIn(k, minute));
    write(keys, () -> store.upsertProcesses(processes));
    metrics.accepted(processes.size());
    return answer.build();
  }

  private Commands ping(EBPFProcessPingPkgList request) {
    checkCount(request.getProcessesCount());
    checkAll(request.getProcessesList().stream()
        .map(p -> Map.entry(p.getEntityMetadata(), p.getPropertiesList())).toList());
    long now = time.nowMillis();
    long minute = time.minuteBucket(now);
    List<ProcessMeta> processes = new ArrayList<>();
    List<ServiceMeta> services = new ArrayList<>();
    List<InstanceMeta> instances = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    int admitted = 0;
    for (EBPFProcessPingPkg p : request.getProcessesList()) {
      EBPFProcessEntityMetadata e = p.getEntityMetadata();
      if (!admitted(e, now)) {
        continue;
      }
      admitted++;
      // Rover's ping carries only support_ebpf_profiling; its full properties come in reportProcesses
      // (on discovery and every tenth heartbeat). Stored, the ping's one property would replace them
      // (the newest non-empty properties describe a process), so a ping says nothing about them.
      ProcessMeta process = ProcessEntities.process(e, List.of(), request.getEbpfAgentID(), "", minute);
      if (firstIn(processKey(process), minute, keys)) {
        processes.add(process);
      }
      if (firstIn("service|" + process.serviceId() + "|" + e.getLayer(), minute, keys)) {
        services.add(new ServiceMeta(process.serviceId(), e.getServiceName(), true, Set.of(e.getLayer()), minute,
            minute));
      }
      // One write a minute per instance, whichever of its processes (and layers) pings first.
      if (firstIn("instance|" + process.instanceId(), minute, keys)) {
        instances.add(new InstanceMeta(process.instanceId(), process.serviceId(), e.getInstanceName(), e.getLayer(),
            Map.of(), minute, minute));
      }
    }
    write(keys, () -> {
      if (!processes.isEmpty()) {
        store.upsertProcesses(processes);
      }
      if (!services.isEmpty()) {
        store.upsertServices(services);
      }
      if (!instances.isEmpty()) {
        store.upsertInstances(instances);
      }
    });
    metrics.accepted(admitted);
    return Commands.getDefaultInstance();
  }

  /** A process is written again within the minute when Rover describes it differently. */
  private static String processKey(ProcessMeta p) {
    return "process|" + p.id() + "|" + p.layer() + "|" + p.agentId() + "|" + p.labels();
  }

  private boolean firstIn(String key, long minute, List<String> keys) {
    if (written.firstIn(key, minute)) {
      keys.add(key);
      return true;
    }
    return false;
  }

  /** Runs the writes; if they fail, the next ping writes them again. */
  private void write(List<String> keys, Runnable writes) {
    try {
      writes.run();
    } catch (RuntimeException e) {
      keys.forEach(written::forget);
      throw e;
    }
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
