package io.sextant.receiver.ebpf.profiling;

import io.grpc.stub.StreamObserver;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskQuery;

/**
 * {@code skywalking.v3.EBPFProfilingService}. {@code queryTasks} answers as SkyWalking 10.1's handler:
 * the polling Rover's processes (by agent id), the FIXED_TIME tasks of their services updated after
 * {@code latestUpdateTime}; a NETWORK task is one command listing the Rover's processes of the
 * task's instance, any other task one command per process of the service that supports profiling
 * and carries every label of the task. Tasks live in shared storage, so whichever collector Rover
 * polls answers the same. {@code collectProfilingData} stores schedules and stack batches ({@link
 * ProfilingStream}).
 */
public final class ProfilingService extends EBPFProfilingServiceGrpc.EBPFProfilingServiceImplBase {
  /** Processes of one Rover looked at per poll. */
  static final int MAX_PROCESSES_PER_AGENT = 10_000;

  private final ReceiverContext context;
  private final ProfilingConfig config;
  private final ReceiverMetrics metrics;
  private final BlockingCalls calls;
  private final TaskCache tasks;

  public ProfilingService(ReceiverContext context, ProfilingConfig config, ReceiverMetrics metrics,
      BlockingCalls calls) {
    this.context = context;
    this.config = config;
    this.metrics = metrics;
    this.calls = calls;
    this.tasks = new TaskCache(context.tasks()::all, config.taskCacheMillis(), System::currentTimeMillis);
  }

  @Override
  public void queryTasks(EBPFProfilingTaskQuery request, StreamObserver<Commands> response) {
    calls.unary("queryTasks", response, () -> commands(request.getRoverInstanceId(), request.getLatestUpdateTime()));
  }

  @Override
  public StreamObserver<EBPFProfilingData> collectProfilingData(StreamObserver<Commands> response) {
    return new ProfilingStream(context, config, metrics, calls, response);
  }

  Commands commands(String agentId, long latestUpdateTime) {
    Commands.Builder out = Commands.newBuilder();
    if (agentId.isEmpty()) {
      return out.build();
    }
    List<ProcessMeta> processes = context.processes().ofAgent(agentId, MAX_PROCESSES_PER_AGENT);
    if (processes.isEmpty()) {
      return out.build();
    }
    Set<String> services = new HashSet<>();
    processes.forEach(p -> services.add(p.serviceId()));
    List<ProfilingTask> due = new ArrayList<>();
    for (ProfilingTask t : tasks.tasks()) {
      if (ProfilingTask.FIXED_TIME.equals(t.triggerType()) && services.contains(t.serviceId())
          && t.lastUpdateTime() > latestUpdateTime) {
        due.add(t);
      }
    }
    due.sort(Comparator.comparingLong(ProfilingTask::lastUpdateTime));
    for (ProfilingTask t : due) {
      if (ProfilingTask.NETWORK.equals(t.targetType())) {
        List<String> ids = processes.stream().filter(p -> Objects.equals(p.instanceId(), t.instanceId()))
            .map(ProcessMeta::id).toList();
        if (!ids.isEmpty()) {
          out.addCommands(TaskCommands.command(t, ids));
        }
        continue;
      }
      for (ProcessMeta p : processes) {
        if (p.serviceId().equals(t.serviceId()) && p.profilingSupported()
            && p.labels().containsAll(t.processLabels())) {
          out.addCommands(TaskCommands.command(t, List.of(p.id())));
        }
      }
    }
    return out.build();
  }
}
