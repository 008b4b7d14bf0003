package io.sextant.core.dispatch;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Dispatcher;
import io.sextant.core.aggregate.EntityRef;

/**
 * What SkyWalking's {@code process(...)} and {@code processRelation(...)} MAL scopes do: a Rover
 * sample feeds its one entity, the process or the relation {@code client-server} (both sides of a
 * relation report into the same entity, each through its own metrics). A value labelled from the
 * data ({@code code}, {@code uri}) is its own entity {@code <id>|<label>}.
 */
public final class ProcessDispatcher implements Dispatcher<ProcessSampleRecord> {

  @Override
  public void dispatch(ProcessSampleRecord r, Target target) {
    String id = baseId(r);
    target.feed(r.scope(), r.label().isEmpty() ? id : EntityIds.labelled(id, r.label()));
  }

  @Override
  public EntityRef entity(Scope scope, String entityId, ProcessSampleRecord r) {
    String serviceId = EntityIds.serviceId(r.service(), true);
    return switch (scope) {
      case PROCESS -> EntityRef.process(entityId, r.layer(), serviceId, r.service(), r.clientProcessId());
      case PROCESS_RELATION -> EntityRef.processRelation(entityId, r.layer(), serviceId, r.service(),
          r.clientProcessId(), r.serverProcessId(), r.component());
      case SERVICE, SERVICE_INSTANCE, ENDPOINT, SERVICE_RELATION, SERVICE_INSTANCE_RELATION ->
          throw new IllegalArgumentException("process samples feed no " + scope);
    };
  }

  private static String baseId(ProcessSampleRecord r) {
    return r.scope().isRelation()
        ? ProcessIds.relationId(r.clientProcessId(), r.serverProcessId())
        : r.clientProcessId();
  }
}
