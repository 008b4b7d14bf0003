package io.sextant.receiver.ebpf.profiling;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.ebpf.ProfilingSchedule;
import io.sextant.api.ebpf.ProfilingSchedules;
import io.sextant.api.ebpf.StackBatch;
import io.sextant.api.ebpf.StackBatches;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.Rejection;
import io.sextant.receiver.ebpf.BlockingCalls;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code collectProfilingData} stream. Messages are checked and batched on the network thread
 * ({@link ProfilingIntake}); storage work (is the task known, write the schedule, write a batch) runs
 * in stream order on the receiver's pool, one job at a time. Data of an unknown task is dropped and
 * counted ({@code unknown_task}). The answer: OK; {@code INVALID_ARGUMENT} naming the first refused
 * message; {@code RESOURCE_EXHAUSTED} when the pool or this stream's queue ({@value #MAX_PENDING_JOBS}
 * jobs) was full; {@code UNAVAILABLE} when storage failed.
 */
final class ProfilingStream implements StreamObserver<EBPFProfilingData>, ProfilingIntake.Output {
  private static final Logger LOG = LoggerFactory.getLogger(ProfilingStream.class);
  static final int MAX_PENDING_JOBS = 64;

  private final ReceiverContext context;
  private final ReceiverMetrics metrics;
  private final BlockingCalls calls;
  private final StreamObserver<Commands> response;
  private final ProfilingIntake intake;
  /** Whether each task id exists; only touched by jobs, which run one at a time. */
  private final Map<String, Boolean> knownTasks = new HashMap<>();

  private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
  private boolean draining;
  private boolean overloaded;
  private String firstProblem;
  private long refused;
  private String storageFailure;
  private long stored;

  ProfilingStream(ReceiverContext context, ProfilingConfig config, ReceiverMetrics metrics, BlockingCalls calls,
      StreamObserver<Commands> response) {
    this.context = context;
    this.metrics = metrics;
    this.calls = calls;
    this.response = response;
    this.intake = new ProfilingIntake(config, UUID.randomUUID().toString(), this);
  }

  @Override
  public void onNext(EBPFProfilingData message) {
    metrics.message();
    Rejection r = intake.accept(message);
    if (r != null) {
      metrics.rejected(r.reason(), 1);
      problem(r.detail());
    }
  }

  @Override
  public void onError(Throwable t) {
    // Rover went away: what arrived is valid, store it; nobody waits for an answer.
    intake.flush();
  }

  @Override
  public void onCompleted() {
    intake.flush();
    enqueue(this::answer, () -> response.onError(Status.RESOURCE_EXHAUSTED
        .withDescription("too many Rover calls waiting; retry later").asRuntimeException()), true);
  }

  @Override
  public void schedule(ProfilingSchedule schedule) {
    enqueue(() -> {
      if (known(schedule.taskId())) {
        context.records().write(List.of(ProfilingSchedules.toRecord(schedule)));
      }
    }, () -> {}, false);
  }

  @Override
  public void batch(String recordId, ProfilingSchedule schedule, long uploadTime, StackBatch batch) {
    int samples = batch.samples().size();
    enqueue(() -> {
      if (!known(schedule.taskId())) {
        metrics.rejected("unknown_task", samples);
        problem("unknown profiling task id " + schedule.taskId());
        return;
      }
      context.records().write(List.of(StackBatches.toRecord(recordId, schedule.scheduleId(), uploadTime, batch)));
      metrics.accepted(samples);
      synchronized (this) {
        stored += samples;
      }
    }, () -> metrics.rejected("overloaded", samples), false);
  }

  private boolean known(String taskId) {
    return knownTasks.computeIfAbsent(taskId, id -> context.tasks().exists(id));
  }

  private synchronized void problem(String message) {
    refused++;
    if (firstProblem == null) {
      firstProblem = message;
    }
  }

  /**
   * Queues a job behind the stream's earlier ones; when it cannot run (this stream's queue full, or
   * the pool refusing to start the queue) runs {@code dropped} instead. The final answer ({@code
   * always}) is queued even past the bound, so it comes after the writes before it.
   */
  private void enqueue(Runnable job, Runnable dropped, boolean always) {
    boolean start;
    synchronized (this) {
      if (!always && (overloaded || pending.size() >= MAX_PENDING_JOBS)) {
        overloaded = true;
        start = false;
        job = null;
      } else {
        pending.add(job);
        start = !draining;
        draining = true;
      }
    }
    if (job == null) {
      dropped.run();
      return;
    }
    if (start && !calls.tryExecute(this::drain)) {
      // Not draining, so the queue held only this job.
      synchronized (this) {
        overloaded = true;
        draining = false;
        pending.clear();
      }
      dropped.run();
    }
  }

  private void drain() {
    while (true) {
      Runnable job;
      synchronized (this) {
        job = pending.poll();
        if (job == null) {
          draining = false;
          return;
        }
      }
      try {
        job.run();
      } catch (RuntimeException e) {
        LOG.warn("storing Rover profiling data failed: {}", e.toString());
        metrics.rejected("storage_unavailable", 1);
        synchronized (this) {
          if (storageFailure == null) {
            storageFailure = e.getMessage();
          }
        }
      }
    }
  }

  private void answer() {
    Status status;
    synchronized (this) {
      if (overloaded) {
        status = Status.RESOURCE_EXHAUSTED.withDescription("too many Rover calls waiting; " + stored
            + " samples of this stream were stored, retry the rest later");
      } else if (storageFailure != null) {
        status = Status.UNAVAILABLE.withDescription("storage unavailable: " + storageFailure);
      } else if (firstProblem != null) {
        status = Status.INVALID_ARGUMENT.withDescription(firstProblem + " (" + refused + " refused, " + stored
            + " samples stored)");
      } else {
        status = Status.OK;
      }
    }
    if (status.isOk()) {
      response.onNext(Commands.getDefaultInstance());
      response.onCompleted();
    } else {
      response.onError(status.asRuntimeException());
    }
  }
}
