package io.sextant.core.dispatch;

import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Dispatcher;
import io.sextant.core.aggregate.EntityRef;

/**
 * The aggregator's dispatcher: hands each record to the dispatcher of its kind (Rover's process
 * samples to {@link ProcessDispatcher}, calls, flows and proxy samples to {@link MeshDispatcher}),
 * so each dispatcher stays about one kind of data.
 */
public final class RecordKindDispatcher implements Dispatcher<Observation> {
  private final Dispatcher<MeshRecord> mesh;
  private final Dispatcher<ProcessSampleRecord> processes;

  public RecordKindDispatcher(Dispatcher<MeshRecord> mesh, Dispatcher<ProcessSampleRecord> processes) {
    this.mesh = mesh;
    this.processes = processes;
  }

  /** The standard composition: SkyWalking's mesh dispatch and Rover's process dispatch. */
  public static RecordKindDispatcher standard(int maxCachedIds) {
    return standard(maxCachedIds, ChildBudgets.unlimited());
  }

  /** As {@link #standard(int)}, with per-service budgets of endpoints and instances. */
  public static RecordKindDispatcher standard(int maxCachedIds, ChildBudgets budgets) {
    return new RecordKindDispatcher(new MeshDispatcher(maxCachedIds, budgets), new ProcessDispatcher());
  }

  @Override
  public void dispatch(Observation record, Target target) {
    if (record instanceof ProcessSampleRecord p) {
      processes.dispatch(p, target);
    } else {
      mesh.dispatch((MeshRecord) record, target);
    }
  }

  @Override
  public EntityRef entity(Scope scope, String entityId, Observation record) {
    return record instanceof ProcessSampleRecord p
        ? processes.entity(scope, entityId, p)
        : mesh.entity(scope, entityId, (MeshRecord) record);
  }
}
