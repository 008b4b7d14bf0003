package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.VersionConflictException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * eBPF profiling tasks with SkyWalking 10.1's rules ({@code EBPFProfilingMutationService}): creating
 * fixed-time ON_CPU/OFF_CPU tasks and per-instance NETWORK tasks, keeping network tasks alive, the
 * task list and the data for the creation dialog. Tasks are {@link TaskDocuments} documents;
 * refusals answer {@code status: false} with SkyWalking's error text.
 *
 * <p>Where SkyWalking's code does not do what its messages and schema say, this does what they say:
 * a fixed-time task overlapping a FIXED_TIME task of the same service and target type is refused
 * ("Task's time range overlaps with other tasks"; SkyWalking's check compares a start with itself
 * and never fires); the task list's {@code duration} keeps tasks whose run overlaps it (SkyWalking
 * compares the duration's end with the last update time); a keep-alive keeps the sampling rules and
 * creation time (SkyWalking's rewrite drops the rules).
 */
public final class ProfilingTaskService {
  /** SkyWalking's shortest fixed-time task, seconds. */
  public static final int FIXED_TIME_MIN_DURATION = 60;
  /** How long a network task runs, and how much one keep-alive adds, seconds. */
  public static final int NETWORK_PROFILING_DURATION = 600;
  /** A keep-alive extends a network task only when it has at most this long left, seconds. */
  public static final int NETWORK_KEEP_ALIVE_THRESHOLD = 60;
  /** SkyWalking's bound on the process labels' JSON. */
  static final int PROCESS_LABELS_JSON_MAX_LENGTH = 1000;
  /** Lost keep-alive races retried before answering "try again". */
  static final int MAX_KEEP_ALIVE_ATTEMPTS = 8;
  /** Processes read per service or instance (labels, counts). */
  static final int MAX_PROCESSES = 10_000;

  private final Supplier<ManagementStore> documents;
  private final Supplier<MetadataStore> metadata;
  private final Clock clock;

  public ProfilingTaskService(Supplier<ManagementStore> documents, Supplier<MetadataStore> metadata, Clock clock) {
    this.documents = documents;
    this.metadata = metadata;
    this.clock = clock;
  }

  public record CreationResult(boolean status, String errorReason, String id) {
    static CreationResult error(String reason) {
      return new CreationResult(false, reason, null);
    }
  }

  public record KeepResult(boolean status, String errorReason) {}

  public record Prepare(boolean couldProfiling, List<String> processLabels) {}

  /** {@code queryEBPFProfilingTasks}' filters; null or empty means any. Times are epoch ms, 0 for none. */
  public record TaskFilter(String serviceId, String instanceId, List<String> targetTypes, String triggerType,
      long startMillis, long endMillis) {}

  /** {@code createEBPFProfilingFixedTimeTask}; a start at or before 0 means now. */
  public CreationResult createFixedTime(String serviceId, List<String> processLabels, long startTime,
      int durationSeconds, String targetType) {
    long now = clock.millis();
    long start = startTime <= 0 ? now : startTime;
    if (serviceId == null || serviceId.isEmpty()) {
      return CreationResult.error("service could not be empty");
    }
    EntityIds.parseServiceId(serviceId);
    List<String> labels = processLabels == null ? List.of() : processLabels;
    if (!labels.isEmpty()) {
      Set<String> existing = labelsOf(serviceId);
      List<String> missing = labels.stream().filter(l -> !existing.contains(l)).toList();
      if (!missing.isEmpty()) {
        return CreationResult.error("The service doesn't have processes with label(s) " + String.join(", ", missing)
            + ".");
      }
      if (labelsJsonLength(labels) > PROCESS_LABELS_JSON_MAX_LENGTH) {
        return CreationResult.error("The labels length is bigger than " + PROCESS_LABELS_JSON_MAX_LENGTH
            + ", please reduce the labels count");
      }
    }
    if (targetType == null) {
      return CreationResult.error("the profiling target could not be null");
    }
    if (!ProfilingTask.ON_CPU.equals(targetType) && !ProfilingTask.OFF_CPU.equals(targetType)) {
      throw new IllegalArgumentException("a fixed-time task profiles ON_CPU or OFF_CPU, not " + targetType);
    }
    if (durationSeconds < FIXED_TIME_MIN_DURATION) {
      return CreationResult.error("the fixed time duration must be greater than or equals " + FIXED_TIME_MIN_DURATION
          + "s");
    }
    long end = start + durationSeconds * 1000L;
    for (ProfilingTask t : all()) {
      if (t.serviceId().equals(serviceId) && t.targetType().equals(targetType)
          && ProfilingTask.FIXED_TIME.equals(t.triggerType()) && t.startTime() < end && start < t.endTime()) {
        return CreationResult.error("Task's time range overlaps with other tasks");
      }
    }
    ProfilingTask task = new ProfilingTask(UUID.randomUUID().toString(), serviceId, "", "", labels, targetType,
        ProfilingTask.FIXED_TIME, start, durationSeconds, now, now, "", List.of());
    documents.get().put(TaskDocuments.KIND, task.taskId(), TaskDocuments.encode(task), 0);
    return new CreationResult(true, null, task.taskId());
  }

  /** {@code createEBPFNetworkProfiling}: a ten-minute NETWORK task on every process of the instance. */
  public CreationResult createNetwork(String instanceId, List<NetworkSamplingRule> samplings) {
    long now = clock.millis();
    if (instanceId == null || instanceId.isEmpty()) {
      return CreationResult.error("instance could not be empty");
    }
    String serviceId = EntityIds.parseChildId(instanceId).serviceId();
    if (metadata.get().processes(new ProcessQuery(null, instanceId, null, 0, Long.MAX_VALUE, 1)).isEmpty()) {
      return CreationResult.error("The instance doesn't have processes.");
    }
    List<NetworkSamplingRule> rules = samplings == null ? List.of() : samplings;
    String problem = samplingProblem(rules);
    if (problem != null) {
      return CreationResult.error(problem);
    }
    ProfilingTask task = new ProfilingTask(UUID.randomUUID().toString(), serviceId, instanceId, "", List.of(),
        ProfilingTask.NETWORK, ProfilingTask.FIXED_TIME, now, NETWORK_PROFILING_DURATION, now, now,
        NetworkSamplingRule.extensionConfigJson(rules), List.of());
    documents.get().put(TaskDocuments.KIND, task.taskId(), TaskDocuments.encode(task), 0);
    return new CreationResult(true, null, task.taskId());
  }

  /**
   * {@code keepEBPFNetworkProfiling}: a running NETWORK task with at most a minute left runs ten
   * minutes more, and is updated now so polling Rovers get it again. The document is rewritten at the
   * version read; a lost race reads again (the winner may already have extended it).
   */
  public KeepResult keepNetwork(String taskId) {
    for (int attempt = 0; attempt < MAX_KEEP_ALIVE_ATTEMPTS; attempt++) {
      Optional<ManagedDocument> doc = taskId == null || taskId.isEmpty() ? Optional.empty()
          : documents.get().get(TaskDocuments.KIND, taskId);
      if (doc.isEmpty()) {
        return new KeepResult(false, "profiling task not exists");
      }
      ProfilingTask task = TaskDocuments.fromDocument(doc.get());
      if (!ProfilingTask.NETWORK.equals(task.targetType())) {
        return new KeepResult(false, "current task is not a \"NETWORK\" task");
      }
      long now = clock.millis();
      long secondsLeft = (task.endTime() - now) / 1000;
      if (task.endTime() < now) {
        return new KeepResult(false, "profiling task has been finished");
      }
      if (secondsLeft > NETWORK_KEEP_ALIVE_THRESHOLD) {
        return new KeepResult(true, null);
      }
      ProfilingTask kept = task.keptAlive(now, task.endTime() + NETWORK_PROFILING_DURATION * 1000L);
      try {
        documents.get().put(TaskDocuments.KIND, taskId, TaskDocuments.encode(kept), doc.get().version());
        return new KeepResult(true, null);
      } catch (VersionConflictException e) {
        // another collector changed it meanwhile: read again
      }
    }
    return new KeepResult(false, "the task was being changed by another request, please try again");
  }

  /** {@code queryEBPFProfilingTasks}: newest created first. */
  public List<TaskView> tasks(TaskFilter f) {
    boolean anyTarget = f.targetTypes() == null || f.targetTypes().isEmpty();
    List<TaskView> out = new ArrayList<>();
    for (ProfilingTask t : all()) {
      if ((isSet(f.serviceId()) && !f.serviceId().equals(t.serviceId()))
          || (isSet(f.instanceId()) && !f.instanceId().equals(t.instanceId()))
          || (!anyTarget && !f.targetTypes().contains(t.targetType()))
          || (f.triggerType() != null && !f.triggerType().equals(t.triggerType()))
          || (f.startMillis() > 0 && t.endTime() < f.startMillis())
          || (f.endMillis() > 0 && t.startTime() > f.endMillis())) {
        continue;
      }
      out.add(view(t));
    }
    out.sort(Comparator.comparingLong((TaskView v) -> v.task().createTime()).reversed());
    return out;
  }

  /**
   * {@code queryPrepareCreateEBPFProfilingTaskData}: whether a process of the service that supports
   * profiling pinged in the last ten minutes, and the labels of the service's processes.
   */
  public Prepare prepare(String serviceId) {
    EntityIds.parseServiceId(serviceId);
    long now = clock.millis();
    long tenMinutesAgo = now - 600_000;
    List<ProcessMeta> processes = metadata.get().processes(new ProcessQuery(serviceId, null, null,
        minute(tenMinutesAgo), minute(now), MAX_PROCESSES));
    if (processes.stream().noneMatch(ProcessMeta::profilingSupported)) {
      return new Prepare(false, List.of());
    }
    return new Prepare(true, List.copyOf(labelsOf(serviceId)));
  }

  /** A task by id, if any. */
  public Optional<ProfilingTask> task(String taskId) {
    return documents.get().get(TaskDocuments.KIND, taskId).map(TaskDocuments::fromDocument);
  }

  private List<ProfilingTask> all() {
    List<ProfilingTask> tasks = new ArrayList<>();
    for (ManagedDocument d : documents.get().list(TaskDocuments.KIND)) {
      tasks.add(TaskDocuments.fromDocument(d));
    }
    return tasks;
  }

  private TaskView view(ProfilingTask t) {
    String serviceName = isSet(t.serviceId()) ? EntityIds.parseServiceId(t.serviceId()).name() : null;
    String instanceName = isSet(t.instanceId()) ? EntityIds.parseChildId(t.instanceId()).name() : null;
    String processName = null;
    if (isSet(t.processId())) {
      processName = metadata.get().process(t.processId()).map(ProcessMeta::name).orElse(null);
    }
    return new TaskView(t, serviceName, instanceName, processName, t.causes().stream().map(Causes::view).toList());
  }

  private Set<String> labelsOf(String serviceId) {
    Set<String> labels = new LinkedHashSet<>();
    for (ProcessMeta p : metadata.get().processes(new ProcessQuery(serviceId, null, null, 0, Long.MAX_VALUE,
        MAX_PROCESSES))) {
      labels.addAll(p.labels());
    }
    return labels;
  }

  private static String samplingProblem(List<NetworkSamplingRule> rules) {
    boolean defaultRule = false;
    Set<String> uris = new HashSet<>();
    for (NetworkSamplingRule r : rules) {
      if (r.uriRegex() == null || r.uriRegex().isEmpty()) {
        if (defaultRule) {
          return "already contains the default sampling config";
        }
        defaultRule = true;
      } else if (!uris.add(r.uriRegex())) {
        return "already contains the \"" + r.uriRegex() + "\" sampling config";
      }
      String problem = r.problem();
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** The length of the labels as Gson writes them, {@code ["a","b"]}, close enough for the bound. */
  private static int labelsJsonLength(List<String> labels) {
    int n = 2;
    for (String l : labels) {
      n += l.length() + 3;
    }
    return n;
  }

  private long minute(long millis) {
    java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(java.time.Instant.ofEpochMilli(millis),
        clock.getZone());
    return t.getYear() * 100_000_000L + t.getMonthValue() * 1_000_000L + t.getDayOfMonth() * 10_000L
        + t.getHour() * 100L + t.getMinute();
  }

  private static boolean isSet(String s) {
    return s != null && !s.isEmpty();
  }
}
