package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import java.util.List;

/**
 * A task as {@code queryEBPFProfilingTasks} lists it: the task, the names its ids stand for ({@code
 * null} when the id is absent or the process unknown), and continuous-profiling causes rendered.
 */
public record TaskView(ProfilingTask task, String serviceName, String instanceName, String processName,
    List<CauseView> causes) {

  /**
   * A cause as the schema shows it: threshold and current ×100 (whole numbers), on a URI for the
   * HTTP monitors, with SkyWalking's summary message.
   */
  public record CauseView(String type, boolean uriBased, long threshold, long current, String uriRegex,
      String uriPath, String message) {}
}
