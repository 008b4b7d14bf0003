package io.sextant.core.profiling.continuous;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.VersionConflictException;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.profiling.PolicyDocuments;
import io.sextant.core.profiling.TaskDocuments;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * continuous-profiling.graphqls with SkyWalking 10.1's semantics: a service's policy (one management
 * document per service, replaced whole by {@link #setPolicy}) and what Rover watches under it. The
 * monitored processes are the service's non-virtual processes that pinged in the last {@value
 * #RECENT_HOURS} hours; trigger counts and times come from the {@code CONTINUOUS_PROFILING} tasks
 * Rover reported (management documents, see {@link TaskDocuments}) that started in that window.
 */
public final class ContinuousProfilingQueries {
  static final int RECENT_HOURS = 48;
  static final int MAX_ATTEMPTS = 8;
  static final int MAX_PROCESSES = 10_000;
  static final String BUSY = "the policy is being changed by someone else at the same time; try again";
  private static final String VIRTUAL = "VIRTUAL";
  private static final Logger LOG = LoggerFactory.getLogger(ContinuousProfilingQueries.class);

  private final Supplier<ManagementStore> documents;
  private final Supplier<MetadataStore> metadata;
  private final TimeBuckets buckets;

  /** The stores are read when used, so building this does no I/O. */
  public ContinuousProfilingQueries(Supplier<ManagementStore> documents, Supplier<MetadataStore> metadata,
      TimeBuckets buckets) {
    this.documents = documents;
    this.metadata = metadata;
    this.buckets = buckets;
  }

  /**
   * Stores the service's policy in place of any previous one ({@code setContinuousProfilingPolicy}).
   * Each write names the version it replaces; one that loses a race to another collector reads again
   * and writes on top (the last policy set wins, as in SkyWalking), up to {@value #MAX_ATTEMPTS} times.
   */
  public PolicySetResult setPolicy(String serviceId, List<ContinuousProfilingPolicy.Target> targets) {
    Optional<String> refusal = PolicyValidation.check(serviceId, targets);
    if (refusal.isPresent()) {
      return PolicySetResult.refused(refusal.get());
    }
    ContinuousProfilingPolicy policy = PolicyDocuments.canonical(serviceId, targets);
    String body = PolicyDocuments.encode(policy);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      Optional<ManagedDocument> current = documents.get().get(PolicyDocuments.KIND, serviceId);
      if (current.isPresent() && current.get().body().equals(body)) {
        return PolicySetResult.done(); // the same policy: no new version, Rover sees no change
      }
      try {
        documents.get().put(PolicyDocuments.KIND, serviceId, body,
            current.map(ManagedDocument::version).orElse(0L));
        return PolicySetResult.done();
      } catch (VersionConflictException e) {
        Thread.onSpinWait(); // another collector or request wrote first: read again
      }
    }
    return PolicySetResult.refused(BUSY);
  }

  /** The stored policy of a service, if any. */
  public Optional<ContinuousProfilingPolicy> policy(String serviceId) {
    if (serviceId == null || serviceId.isEmpty()) {
      return Optional.empty();
    }
    return documents.get().get(PolicyDocuments.KIND, serviceId)
        .map(PolicyDocuments::fromDocument);
  }

  /** The targets of the service's policy with their triggers ({@code queryContinuousProfilingServiceTargets}). */
  public List<PolicyTarget> serviceTargets(String serviceId) {
    Optional<ContinuousProfilingPolicy> policy = policy(serviceId);
    if (policy.isEmpty()) {
      return List.of();
    }
    List<String> types = policy.get().targets().stream().map(ContinuousProfilingPolicy.Target::targetType).toList();
    Map<String, TriggerSummary> byTarget = summarize(recentTriggered(serviceId, types), ProfilingTask::targetType);
    return policy.get().targets().stream().map(t -> {
      TriggerSummary s = byTarget.getOrDefault(t.targetType(), TriggerSummary.NONE);
      return new PolicyTarget(t.targetType(), t.checkItems(), s.count(), s.lastTriggerTimestamp());
    }).toList();
  }

  /**
   * The service's instances with watched processes, each with the triggers of {@code target}
   * ({@code queryContinuousProfilingMonitoringInstances}); instances and processes by name.
   */
  public List<MonitoringInstance> monitoringInstances(String serviceId, String target) {
    if (serviceId == null || serviceId.isEmpty()) {
      return List.of();
    }
    EntityIds.parseServiceId(serviceId);
    if (!ContinuousProfilingPolicy.TARGET_TYPES.contains(target)) {
      throw new IllegalArgumentException("unknown continuous profiling target type: " + target);
    }
    long since = buckets.minuteBucket(recentStart());
    List<ProcessMeta> processes = metadata.get()
        .processes(new ProcessQuery(serviceId, null, null, since, Long.MAX_VALUE, MAX_PROCESSES)).stream()
        .filter(p -> !VIRTUAL.equals(p.detectType()))
        .toList();
    if (processes.isEmpty()) {
      return List.of();
    }
    List<ProfilingTask> tasks = recentTriggered(serviceId, List.of(target));
    Map<String, TriggerSummary> byInstance = summarize(tasks, ProfilingTask::instanceId);
    Map<String, TriggerSummary> byProcess = summarize(tasks, ProfilingTask::processId);
    Map<String, List<ProcessMeta>> byInstanceId = processes.stream()
        .collect(Collectors.groupingBy(ProcessMeta::instanceId, TreeMap::new, Collectors.toList()));
    List<MonitoringInstance> out = new ArrayList<>();
    byInstanceId.forEach((instanceId, instanceProcesses) -> {
      Optional<InstanceMeta> meta = metadata.get().instance(instanceId);
      TriggerSummary s = byInstance.getOrDefault(instanceId, TriggerSummary.NONE);
      List<MonitoringProcess> watched = instanceProcesses.stream()
          .sorted(Comparator.comparing(ProcessMeta::name))
          .map(p -> {
            TriggerSummary ps = byProcess.getOrDefault(p.id(), TriggerSummary.NONE);
            return new MonitoringProcess(p.id(), p.name(), p.detectType(), p.labels(), ps.count(),
                ps.lastTriggerTimestamp());
          })
          .toList();
      out.add(new MonitoringInstance(instanceId, meta.map(InstanceMeta::name).orElseGet(() -> nameOf(instanceId)),
          meta.map(InstanceMeta::attributes).orElse(Map.of()), s.count(), s.lastTriggerTimestamp(), watched));
    });
    out.sort(Comparator.comparing(MonitoringInstance::name));
    return out;
  }

  /** Rover registers the instance with its processes; until that is seen, its name is in its id. */
  private static String nameOf(String instanceId) {
    try {
      return EntityIds.parseChildId(instanceId).name();
    } catch (IllegalArgumentException e) {
      return instanceId;
    }
  }

  private long recentStart() {
    return buckets.nowMillis() - RECENT_HOURS * 3_600_000L;
  }

  /** The service's continuous-profiling tasks of these targets started in the recent window. */
  private List<ProfilingTask> recentTriggered(String serviceId, List<String> targetTypes) {
    long since = recentStart();
    List<ProfilingTask> out = new ArrayList<>();
    for (ManagedDocument d : documents.get().list(TaskDocuments.KIND)) {
      ProfilingTask t;
      try {
        t = TaskDocuments.fromDocument(d);
      } catch (IllegalArgumentException e) {
        LOG.warn("skipping profiling task {}: {}", d.id(), e.getMessage());
        continue;
      }
      if (ProfilingTask.CONTINUOUS_PROFILING.equals(t.triggerType()) && serviceId.equals(t.serviceId())
          && targetTypes.contains(t.targetType()) && t.startTime() >= since) {
        out.add(t);
      }
    }
    return out;
  }

  private static Map<String, TriggerSummary> summarize(List<ProfilingTask> tasks,
      Function<ProfilingTask, String> key) {
    return tasks.stream().collect(Collectors.groupingBy(key,
        Collectors.collectingAndThen(Collectors.toList(), TriggerSummary::of)));
  }
}
