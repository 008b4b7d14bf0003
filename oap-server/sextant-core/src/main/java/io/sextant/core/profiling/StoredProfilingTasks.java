package io.sextant.core.profiling;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.receiver.ProfilingTasks;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Core's {@link ProfilingTasks}: tasks and policies as management documents ({@link TaskDocuments},
 * {@link PolicyDocuments}), the same documents the GraphQL side creates and lists.
 */
public final class StoredProfilingTasks implements ProfilingTasks {
  private final Supplier<ManagementStore> documents;

  public StoredProfilingTasks(Supplier<ManagementStore> documents) {
    this.documents = documents;
  }

  @Override
  public List<ProfilingTask> all() {
    List<ProfilingTask> all = new ArrayList<>();
    for (ManagedDocument d : documents.get().list(TaskDocuments.KIND)) {
      all.add(TaskDocuments.fromDocument(d));
    }
    return all;
  }

  @Override
  public boolean exists(String taskId) {
    return documents.get().get(TaskDocuments.KIND, taskId).isPresent();
  }

  @Override
  public void add(ProfilingTask task) {
    try {
      documents.get().put(TaskDocuments.KIND, task.taskId(), TaskDocuments.encode(task), 0);
    } catch (VersionConflictException e) {
      // The same report stored in the same millisecond: it is one task.
    }
  }

  /** One read for one service, else the whole (small) kind. */
  @Override
  public Map<String, ContinuousProfilingPolicy> policies(Collection<String> serviceIds) {
    List<ManagedDocument> found;
    if (serviceIds.size() == 1) {
      found = documents.get().get(PolicyDocuments.KIND, serviceIds.iterator().next()).stream().toList();
    } else {
      Set<String> wanted = new HashSet<>(serviceIds);
      found = documents.get().list(PolicyDocuments.KIND).stream().filter(d -> wanted.contains(d.id())).toList();
    }
    Map<String, ContinuousProfilingPolicy> out = new HashMap<>();
    for (ManagedDocument d : found) {
      try {
        out.put(d.id(), PolicyDocuments.fromDocument(d));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("the stored policy of service " + d.id() + " is unreadable", e);
      }
    }
    return out;
  }
}
