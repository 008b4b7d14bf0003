package io.sextant.api.receiver;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProfilingTask;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The profiling work agents poll for (SkyWalking Rover): the tasks users created, the tasks
 * continuous profiling fired, and the continuous-profiling policies per service. They live in
 * shared storage, so whichever collector an agent polls answers the same; every call reads or
 * writes it and throws when it is unavailable.
 */
public interface ProfilingTasks {

  /** Every task. */
  List<ProfilingTask> all();

  /** Whether task {@code taskId} exists (an agent reports data only for a known task). */
  boolean exists(String taskId);

  /** Stores a task an agent started (continuous profiling fired); storing the same task twice is one task. */
  void add(ProfilingTask task);

  /**
   * The stored policies of these services, by service id; a service without one is absent. Throws
   * {@link IllegalStateException} when a stored policy cannot be read: unreadable is not "no policy",
   * which would switch the agent's profiling off.
   */
  Map<String, ContinuousProfilingPolicy> policies(Collection<String> serviceIds);
}
