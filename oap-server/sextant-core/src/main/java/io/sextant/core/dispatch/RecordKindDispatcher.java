package io.sextant.core.dispatch;

import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Dispatcher;
import io.sextant.core.aggregate.EntityRef;

/**
 * The aggregator's dispatcher: hands each record to the dispatcher of its kind (Rover's process
 * samples to {@link ProcessDispatcher}, its kernel records to {@link KernelDispatcher}, calls, flows
 * and proxy samples to {@link MeshDispatcher}), so each dispatcher stays about one kind of data.
 */
public final class RecordKindDispatcher implements Dispatcher<Observation> {
  private final Dispatcher<MeshRecord> mesh;
  private final Dispatcher<ProcessSampleRecord> processes;
  private final Dispatcher<KernelRecord> kernel;

  public RecordKindDispatcher(Dispatcher<MeshRecord> mesh, Dispatcher<ProcessSampleRecord> processes,
      Dispatcher<KernelRecord> kernel) {
    this.mesh = mesh;
    this.processes = processes;
    this.kernel = kernel;
  }

  /** The standard composition: SkyWalking's mesh dispatch, Rover's process and kernel dispatch. */
  public static RecordKindDispatcher standard(int maxCachedIds) {
    return standard(maxCachedIds, ChildBudgets.unlimited());
  }

  /** As {@link #standard(int)}, with per-service budgets of endpoints and instances. */
  public static RecordKindDispatcher standard(int maxCachedIds, ChildBudgets budgets) {
    // One id cache: a service seen by the mesh and by the kernel has one set of names and budgets.
    IdCache ids = new IdCache(maxCachedIds, budgets);
    return new RecordKindDispatcher(new MeshDispatcher(ids), new ProcessDispatcher(), new KernelDispatcher(ids));
  }

  @Override
  public void dispatch(Observation record, Target target) {
    if (record instanceof ProcessSampleRecord p) {
      processes.dispatch(p, target);
    } else if (record instanceof KernelRecord k) {
      kernel.dispatch(k, target);
    } else {
      mesh.dispatch((MeshRecord) record, target);
    }
  }

  @Override
  public EntityRef entity(Scope scope, String entityId, Observation record) {
    if (record instanceof ProcessSampleRecord p) {
      return processes.entity(scope, entityId, p);
    }
    return record instanceof KernelRecord k
        ? kernel.entity(scope, entityId, k)
        : mesh.entity(scope, entityId, (MeshRecord) record);
  }
}
