package io.sextant.receiver.ebpf.profiling;

import io.sextant.api.ebpf.ProfilingSchedule;
import io.sextant.api.ebpf.ProfilingSchedules;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.ebpf.StackBatch;
import io.sextant.receiver.common.Rejection;
import java.util.List;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;

/**
 * One {@code collectProfilingData} stream's messages in order, checked and batched, as SkyWalking
 * reads them: the first message, and any later one carrying task metadata, sets the schedule
 * (written again with its newer end); every sample is stored with the upload time of the latest
 * metadata. Consecutive samples of one schedule, upload time and target type go into one {@link
 * StackBatch} of at most {@code samplesPerBatch}. Not thread-safe: one per stream.
 */
public final class ProfilingIntake {
  /** Where checked data goes, in stream order. */
  public interface Output {
    void schedule(ProfilingSchedule schedule);

    void batch(String recordId, ProfilingSchedule schedule, long uploadTime, StackBatch batch);
  }

  private final ProfilingConfig limits;
  private final String streamId;
  private final Output output;
  private boolean first = true;
  private ProfilingSchedule schedule;
  private long uploadTime;
  private StackBatch.Builder batch;
  private int batches;

  public ProfilingIntake(ProfilingConfig limits, String streamId, Output output) {
    this.limits = limits;
    this.streamId = streamId;
    this.output = output;
  }

  /** Takes one message; null when accepted. A refused message changes nothing. */
  public Rejection accept(EBPFProfilingData m) {
    if (first || m.hasTask()) {
      first = false;
      EBPFProfilingTaskMetadata task = m.getTask();
      if (task.getTaskId().isEmpty() || task.getProcessId().isEmpty()) {
        schedule = null;
        return new Rejection("missing_task", "profiling data without task metadata (task id and process id)");
      }
      if (task.getTaskId().length() > limits.maxSymbolLength() || task.getProcessId().length() > 256) {
        schedule = null;
        return new Rejection("invalid_task", "task or process id too long");
      }
      String id = ProfilingSchedules.scheduleId(task.getTaskId(), task.getProcessId(), task.getProfilingStartTime());
      long end = schedule != null && schedule.scheduleId().equals(id)
          ? Math.max(schedule.endTime(), task.getCurrentTime()) : task.getCurrentTime();
      ProfilingSchedule next = new ProfilingSchedule(id, task.getTaskId(), task.getProcessId(),
          task.getProfilingStartTime(), end);
      if (!next.equals(schedule)) {
        flush();
        schedule = next;
        output.schedule(next);
      }
      if (task.getCurrentTime() != uploadTime) {
        flush();
        uploadTime = task.getCurrentTime();
      }
    }
    if (schedule == null) {
      return new Rejection("missing_task", "profiling data without task metadata (task id and process id)");
    }
    return switch (m.getProfilingCase()) {
      case ONCPU -> {
        if (m.getOnCPU().getDumpCount() < 0) {
          yield new Rejection("invalid_count", "negative dump count " + m.getOnCPU().getDumpCount());
        }
        yield sample(ProfilingTask.ON_CPU, m.getOnCPU().getStacksList(), m.getOnCPU().getDumpCount(), 0);
      }
      case OFFCPU -> {
        if (m.getOffCPU().getSwitchCount() < 0 || m.getOffCPU().getDuration() < 0) {
          yield new Rejection("invalid_count", "negative switch count or duration");
        }
        yield sample(ProfilingTask.OFF_CPU, m.getOffCPU().getStacksList(), m.getOffCPU().getSwitchCount(),
            m.getOffCPU().getDuration());
      }
      case PROFILING_NOT_SET -> new Rejection("no_profiling_data", "the profiling data not set");
    };
  }

  /** Hands over the batch being filled, if any (at the end of the stream, or before a new one). */
  public void flush() {
    if (batch != null && batch.size() > 0) {
      output.batch(streamId + "-" + batches++, schedule, uploadTime, batch.build());
    }
    batch = null;
  }

  private Rejection sample(String target, List<EBPFProfilingStackMetadata> stacks, long count, long duration) {
    if (stacks.size() > limits.maxStacksPerMessage()) {
      return new Rejection("too_many_stacks", stacks.size() + " stacks in one message, more than "
          + limits.maxStacksPerMessage());
    }
    // SkyWalking keeps one stack per space (the last), kernel space first.
    EBPFProfilingStackMetadata kernel = null;
    EBPFProfilingStackMetadata user = null;
    for (EBPFProfilingStackMetadata s : stacks) {
      switch (s.getStackType()) {
        case PROCESS_KERNEL_SPACE -> kernel = s;
        case PROCESS_USER_SPACE -> user = s;
        default -> {
          return new Rejection("unknown_stack_type", "unknown stack type " + s.getStackTypeValue());
        }
      }
    }
    List<String> k = kernel == null ? List.of() : kernel.getStackSymbolsList();
    List<String> u = user == null ? List.of() : user.getStackSymbolsList();
    if (k.isEmpty() && u.isEmpty()) {
      return new Rejection("empty_stack", "a stack sample without symbols");
    }
    Rejection bad = symbols(k);
    if (bad == null) {
      bad = symbols(u);
    }
    if (bad != null) {
      return bad;
    }
    if (batch != null && (!batch.targetType().equals(target) || batch.size() >= limits.samplesPerBatch())) {
      flush();
    }
    if (batch == null) {
      batch = new StackBatch.Builder(target);
    }
    batch.add(count, duration, k, u);
    return null;
  }

  private Rejection symbols(List<String> stack) {
    if (stack.size() > limits.maxSymbolsPerStack()) {
      return new Rejection("too_many_symbols", stack.size() + " symbols in one stack, more than "
          + limits.maxSymbolsPerStack());
    }
    for (String s : stack) {
      if (s.length() > limits.maxSymbolLength()) {
        return new Rejection("symbol_too_long", "a symbol of " + s.length() + " characters, more than "
            + limits.maxSymbolLength());
      }
    }
    return null;
  }
}
