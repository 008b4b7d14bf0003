package io.sextant.core.dispatch;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Dispatcher;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.dispatch.IdCache.ServiceIds;

/**
 * SkyWalking's mesh dispatch for calls, flows and proxy samples: server-side reports feed the
 * destination's service, instance and endpoint; any report with a known source feeds the service
 * and instance relations (mesh data has no endpoint relations). Only the former make listed
 * services, instances and endpoints (see {@code io.sextant.core.topology.ListingRule}).
 */
public final class MeshDispatcher implements Dispatcher<MeshRecord> {
  private final IdCache ids;

  public MeshDispatcher(int maxCachedIds) {
    this.ids = new IdCache(maxCachedIds);
  }

  @Override
  public void dispatch(MeshRecord r, Target target) {
    ServiceIds dest = ids.idsOf(r.destService());
    String destInstanceId = r.destInstance().isEmpty() ? null : dest.instance(r.destInstance());
    if (r.detectPoint() == DetectPoint.SERVER) {
      target.feed(Scope.SERVICE, dest.id);
      if (destInstanceId != null) {
        target.feed(Scope.SERVICE_INSTANCE, instanceEntity(r, destInstanceId));
      }
      String endpoint = endpoint(r);
      if (!endpoint.isEmpty()) {
        target.feed(Scope.ENDPOINT, dest.endpoint(endpoint));
      }
    }
    if (!r.sourceService().isEmpty()) {
      ServiceIds src = ids.idsOf(r.sourceService());
      target.feed(Scope.SERVICE_RELATION, src.relationTo(dest.id));
      if (destInstanceId != null && !r.sourceInstance().isEmpty()) {
        target.feed(Scope.SERVICE_INSTANCE_RELATION, src.instanceRelation(r.sourceInstance(), destInstanceId));
      }
    }
  }

  @Override
  public EntityRef entity(Scope scope, String id, MeshRecord r) {
    ServiceIds dest = ids.idsOf(r.destService());
    return switch (scope) {
      case SERVICE -> EntityRef.service(id, r.layer(), dest.name);
      case SERVICE_INSTANCE -> EntityRef.instance(id, r.layer(), dest.id, dest.name, dest.instance(r.destInstance()),
          r.destInstance(), r.destInstanceProperties());
      case ENDPOINT -> EntityRef.endpoint(id, r.layer(), dest.id, dest.name, endpoint(r));
      case SERVICE_RELATION -> {
        ServiceIds src = ids.idsOf(r.sourceService());
        yield EntityRef.serviceRelation(id, r.layer(), src.id, src.name, dest.id, dest.name);
      }
      case SERVICE_INSTANCE_RELATION -> {
        ServiceIds src = ids.idsOf(r.sourceService());
        yield EntityRef.instanceRelation(id, r.layer(),
            new EntityRef.Side(src.id, src.name, src.instance(r.sourceInstance()), r.sourceInstance(),
                r.sourceInstanceProperties()),
            new EntityRef.Side(dest.id, dest.name, dest.instance(r.destInstance()), r.destInstance(),
                r.destInstanceProperties()));
      }
      case PROCESS, PROCESS_RELATION -> throw new IllegalArgumentException("mesh records feed no " + scope);
    };
  }

  /** A labelled sample (e.g. per upstream cluster) is its own entity under the instance. */
  private static String instanceEntity(MeshRecord r, String instanceId) {
    return r instanceof SampleRecord s && !s.label().isEmpty() ? EntityIds.labelled(instanceId, s.label()) : instanceId;
  }

  private static String endpoint(MeshRecord r) {
    return r instanceof CallRecord c ? c.endpoint() : "";
  }
}
