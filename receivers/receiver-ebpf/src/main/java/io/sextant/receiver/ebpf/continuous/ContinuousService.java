package io.sextant.receiver.ebpf.continuous;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.receiver.ProfilingTasks;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingPolicyQuery;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingReport;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.ContinuousProfilingServicePolicyQuery;

/**
 * {@code skywalking.v3.ContinuousProfilingService} as SkyWalking 10.1 answers it. {@code
 * queryPolicies}: Rover names each service it watches with the policy uuid it holds; the answer is
 * one {@code ContinuousProfilingPolicyQuery} command carrying only the services whose stored policy
 * differs (or is gone while Rover still holds one), or no command at all. {@code reportProfilingTask}:
 * a policy fired; the task is stored as a {@code CONTINUOUS_PROFILING} profiling task and its id sent
 * back in a {@code ContinuousProfilingReportTask} command, for Rover to report the profiling data under.
 */
public final class ContinuousService extends ContinuousProfilingServiceGrpc.ContinuousProfilingServiceImplBase {
  static final String POLICY_COMMAND = "ContinuousProfilingPolicyQuery";
  static final String REPORT_COMMAND = "ContinuousProfilingReportTask";

  private final ProfilingTasks tasks;
  private final BlockingCalls calls;
  private final ReceiverMetrics metrics;
  private final int maxStringLength;
  private final ContinuousConfig config;
  private final ContinuousReports reports;
  private final PolicyCache cache;
  private final LongSupplier clock;

  public ContinuousService(ProfilingTasks tasks, BlockingCalls calls, ReceiverMetrics metrics, int maxStringLength,
      ContinuousConfig config, LongSupplier clock, LongSupplier nanoTime) {
    this.tasks = tasks;
    this.calls = calls;
    this.metrics = metrics;
    this.maxStringLength = maxStringLength;
    this.config = config;
    this.reports = new ContinuousReports(maxStringLength, config);
    this.cache = new PolicyCache(config.policyCacheSeconds(), config.maxCachedPolicies(), nanoTime);
    this.clock = clock;
  }

  @Override
  public void queryPolicies(ContinuousProfilingPolicyQuery request, StreamObserver<Commands> response) {
    calls.unary("queryPolicies", response, refusing(() -> policyUpdates(request)));
  }

  @Override
  public void reportProfilingTask(ContinuousProfilingReport request, StreamObserver<Commands> response) {
    calls.unary("reportProfilingTask", response, refusing(() -> report(request)));
  }

  /** Bad input answers INVALID_ARGUMENT with the reason, counted under its own label. */
  private Callable<Commands> refusing(Callable<Commands> call) {
    return () -> {
      try {
        return call.call();
      } catch (ContinuousReports.Refused e) {
        metrics.rejected(e.reason, 1);
        throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
      }
    };
  }

  private Commands policyUpdates(ContinuousProfilingPolicyQuery request) {
    if (request.getPoliciesCount() > config.maxPolicyQueryServices()) {
      throw new ContinuousReports.Refused("too_many_services", "at most " + config.maxPolicyQueryServices()
          + " services per policy query, got " + request.getPoliciesCount());
    }
    // Rover's uuid per service id (the first, if a service is named twice, as SkyWalking keeps).
    Map<String, ContinuousProfilingServicePolicyQuery> held = new LinkedHashMap<>();
    for (ContinuousProfilingServicePolicyQuery q : request.getPoliciesList()) {
      if (q.getServiceName().isEmpty() || q.getServiceName().length() > maxStringLength
          || q.getUuid().length() > maxStringLength) {
        // One bad entry must not stop the policies of the other services: skip it, counted.
        metrics.rejected(q.getServiceName().isEmpty() ? "missing_name" : "string_too_long", 1);
        continue;
      }
      held.putIfAbsent(EntityIds.serviceId(q.getServiceName(), true), q);
    }
    if (held.isEmpty()) {
      return Commands.getDefaultInstance();
    }
    Map<String, Optional<ContinuousProfilingPolicy>> stored = cache.policies(new ArrayList<>(held.keySet()),
        tasks::policies);
    List<RoverPolicyJson.Update> updates = new ArrayList<>();
    held.forEach((serviceId, q) -> {
      Optional<ContinuousProfilingPolicy> policy = stored.get(serviceId);
      boolean changed = policy.isPresent() ? !policy.get().uuid().equals(q.getUuid()) : !q.getUuid().isEmpty();
      if (changed) {
        updates.add(new RoverPolicyJson.Update(q.getServiceName(), policy));
      }
    });
    metrics.accepted(1);
    if (updates.isEmpty()) {
      return Commands.getDefaultInstance();
    }
    return Commands.newBuilder().addCommands(command(POLICY_COMMAND, "ServiceWithPolicyJSON",
        RoverPolicyJson.of(updates))).build();
  }

  private Commands report(ContinuousProfilingReport request) {
    ProfilingTask task = reports.toTask(request, clock.getAsLong());
    tasks.add(task);
    metrics.accepted(1);
    return Commands.newBuilder().addCommands(command(REPORT_COMMAND, "TaskId", task.taskId())).build();
  }

  /** A command with SkyWalking's leading {@code SerialNumber} argument and one more. */
  private static Command command(String name, String key, String value) {
    return Command.newBuilder().setCommand(name)
        .addArgs(KeyStringValuePair.newBuilder().setKey("SerialNumber").setValue(UUID.randomUUID().toString()))
        .addArgs(KeyStringValuePair.newBuilder().setKey(key).setValue(value))
        .build();
  }
}
