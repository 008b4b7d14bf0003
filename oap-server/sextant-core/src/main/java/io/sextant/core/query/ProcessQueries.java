package io.sextant.core.query;

import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.StorageComponent;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Processes (SkyWalking Rover's) as metadata-v2 asks for them, with SkyWalking 10.1's rules: an
 * instance's processes alive in a duration (virtual ones included), one process by id, and the
 * estimated number of processes of a service that a profiling task on some labels would reach.
 */
public final class ProcessQueries {
  /** At most this many processes are read for one answer. */
  public static final int MAX_PROCESSES = 10_000;

  /** SkyWalking estimates a task's reach over the processes alive in the last ten minutes. */
  public static final int ESTIMATE_MINUTES = 10;

  private static final Comparator<ProcessMeta> BY_NAME =
      Comparator.comparing(ProcessMeta::name).thenComparing(ProcessMeta::id);

  private final StorageComponent storage;

  public ProcessQueries(StorageComponent storage) {
    this.storage = storage;
  }

  /** The instance's processes alive at some minute of the duration, by name. */
  public List<ProcessMeta> processes(String instanceId, QueryDuration d) {
    return storage.metadata()
        .processes(new ProcessQuery(null, instanceId, null, d.startMinute(), d.endMinute(), MAX_PROCESSES))
        .stream().sorted(BY_NAME).toList();
  }

  public Optional<ProcessMeta> process(String processId) {
    return storage.metadata().process(processId);
  }

  /**
   * How many of the service's processes that support eBPF profiling pinged since {@code
   * sinceMinute} (a minute bucket) and carry every one of {@code labels}.
   */
  public long estimateScale(String serviceId, List<String> labels, long sinceMinute) {
    return storage.metadata()
        .processes(new ProcessQuery(serviceId, null, null, sinceMinute, Long.MAX_VALUE, MAX_PROCESSES)).stream()
        .filter(p -> p.profilingSupported() && p.labels().containsAll(labels)).count();
  }
}
