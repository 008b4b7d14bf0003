package io.sextant.api.receiver;

import io.sextant.api.storage.ProcessMeta;
import java.util.List;

/**
 * Where a receiver registers the processes an agent reports (SkyWalking Rover), and reads back
 * which processes an agent has. Core writes them, with their services and instances, at most once
 * a minute each however often the agent pings. The calls that write do so before they return and
 * throw when storage is unavailable (the receiver answers the agent {@code UNAVAILABLE}, and the
 * agent retries); {@link #virtual} is written in the background.
 */
public interface ProcessRegistry {

  /** An agent's full description of these processes (on discovery, and now and then): written now. */
  void report(List<ProcessMeta> processes);

  /**
   * An agent says these processes are alive: each process, its service (in the process's layer)
   * and its instance are written unless this collector wrote them already this minute.
   */
  void alive(List<AliveProcess> processes);

  /**
   * A process that metrics name but no agent reports (SkyWalking's {@code UNKNOWN_LOCAL} and
   * {@code UNKNOWN_REMOTE}, detect type {@code VIRTUAL}): written once a minute, off the caller's
   * thread; when storage lags, it waits for the next minute (counted).
   */
  void virtual(String serviceName, String instanceName, String processName);

  /** The processes agent {@code agentId} reported, at most {@code limit}. */
  List<ProcessMeta> ofAgent(String agentId, int limit);

  /** A pinged process with the names of its service and instance, which the process holds only as ids. */
  record AliveProcess(ProcessMeta process, String serviceName, String instanceName) {}
}
