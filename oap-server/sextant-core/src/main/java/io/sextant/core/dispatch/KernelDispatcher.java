package io.sextant.core.dispatch;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Dispatcher;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.dispatch.IdCache.ServiceIds;
import java.util.Map;

/**
 * SkyWalking's access-log dispatch ({@code AccessLogServiceHandler}) for Rover's kernel records: a
 * record feeds the watched pod's service and instance (from either side of the connection), the
 * server side's HTTP endpoint, and the service and instance relations from caller to called, each
 * side through its own metrics. A peer Rover could not name ({@link KernelRecord#UNKNOWN}) is a
 * relation's end, never a service of its own; a peer without a pod has no instance relation.
 */
public final class KernelDispatcher implements Dispatcher<KernelRecord> {
  private final IdCache ids;

  KernelDispatcher(IdCache ids) {
    this.ids = ids;
  }

  @Override
  public void dispatch(KernelRecord r, Target target) {
    ServiceIds local = ids.idsOf(r.localService());
    if (!KernelRecord.UNKNOWN.equals(r.localService())) {
      target.feed(Scope.SERVICE, local.id);
      if (!r.localInstance().isEmpty()) {
        target.feed(Scope.SERVICE_INSTANCE, local.instance(local.instanceName(r.localInstance(), true)));
      }
      if (r.operation() == KernelOperation.HTTP && r.detectPoint() == DetectPoint.SERVER) {
        target.feed(Scope.ENDPOINT, local.endpoint(local.endpointName(r.endpoint(), true)));
      }
    }
    ServiceIds source = ids.idsOf(r.sourceService());
    ServiceIds dest = ids.idsOf(r.destService());
    if (source.name.equals(dest.name)) {
      return; // the receiver drops such connections; SkyWalking draws no self-relation either
    }
    target.feed(Scope.SERVICE_RELATION, source.relationTo(dest.id));
    if (!r.localInstance().isEmpty() && !r.remoteInstance().isEmpty()) {
      String destInstanceId = dest.instance(dest.instanceName(r.destInstance(), true));
      target.feed(Scope.SERVICE_INSTANCE_RELATION,
          source.instanceRelation(source.instanceName(r.sourceInstance(), true), destInstanceId));
    }
  }

  @Override
  public EntityRef entity(Scope scope, String id, KernelRecord r) {
    ServiceIds local = ids.idsOf(r.localService());
    return switch (scope) {
      case SERVICE -> EntityRef.service(id, r.layer(), local.name);
      case SERVICE_INSTANCE -> {
        String instance = local.instanceName(r.localInstance(), false);
        yield EntityRef.instance(id, r.layer(), local.id, local.name, local.instance(instance), instance, Map.of());
      }
      case ENDPOINT -> EntityRef.endpoint(id, r.layer(), local.id, local.name, local.endpointName(r.endpoint(), false));
      case SERVICE_RELATION -> {
        ServiceIds source = ids.idsOf(r.sourceService());
        ServiceIds dest = ids.idsOf(r.destService());
        yield EntityRef.serviceRelation(id, r.layer(), source.id, source.name, dest.id, dest.name);
      }
      case SERVICE_INSTANCE_RELATION -> {
        ServiceIds source = ids.idsOf(r.sourceService());
        ServiceIds dest = ids.idsOf(r.destService());
        String from = source.instanceName(r.sourceInstance(), false);
        String to = dest.instanceName(r.destInstance(), false);
        yield EntityRef.instanceRelation(id, r.layer(),
            new EntityRef.Side(source.id, source.name, source.instance(from), from, Map.of()),
            new EntityRef.Side(dest.id, dest.name, dest.instance(to), to, Map.of()));
      }
      case PROCESS, PROCESS_RELATION -> throw new IllegalArgumentException("kernel records feed no " + scope);
    };
  }
}
