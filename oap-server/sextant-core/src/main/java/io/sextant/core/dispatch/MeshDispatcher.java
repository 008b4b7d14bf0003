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
import java.util.Map;

/**
 * SkyWalking's mesh dispatch for calls, flows and proxy samples: server-side reports feed the
 * destination's service, instance and endpoint; any report with a known source feeds the service
 * and instance relations (mesh data has no endpoint relations). Only the former make listed
 * services, instances and endpoints (see {@code io.sextant.core.topology.ListingRule}).
 */
public final class MeshDispatcher implements Dispatcher<MeshRecord> {
  private final IdCache ids;

  public MeshDispatcher(int maxCachedIds) {
    this(maxCachedIds, ChildBudgets.unlimited());
  }

  /** With per-service budgets of endpoints and instances ({@link ChildBudgets}). */
  public MeshDispatcher(int maxCachedIds, ChildBudgets budgets) {
    this(new IdCache(maxCachedIds, budgets));
  }

  /** Over ids (and budgets) shared with the other dispatchers of the same services. */
  MeshDispatcher(IdCache ids) {
    this.ids = ids;
  }

  @Override
  public void dispatch(MeshRecord r, Target target) {
    ServiceIds dest = ids.idsOf(r.destService());
    String destInstanceId =
        r.destInstance().isEmpty() ? null : dest.instance(dest.instanceName(r.destInstance(), true));
    if (r.detectPoint() == DetectPoint.SERVER) {
      target.feed(Scope.SERVICE, dest.id);
      if (destInstanceId != null) {
        target.feed(Scope.SERVICE_INSTANCE, instanceEntity(r, destInstanceId));
      }
      String endpoint = endpoint(r);
      if (!endpoint.isEmpty()) {
        target.feed(Scope.ENDPOINT, dest.endpoint(dest.endpointName(endpoint, true)));
      }
    }
    if (!r.sourceService().isEmpty()) {
      ServiceIds src = ids.idsOf(r.sourceService());
      target.feed(Scope.SERVICE_RELATION, src.relationTo(dest.id));
      if (destInstanceId != null && !r.sourceInstance().isEmpty()) {
        target.feed(Scope.SERVICE_INSTANCE_RELATION,
            src.instanceRelation(src.instanceName(r.sourceInstance(), true), destInstanceId));
      }
    }
  }

  /**
   * Describes the entity {@code id} the record fed; names pass the same budgets as in {@link
   * #dispatch} (admitted names stay admitted, so both agree), and a folded instance gets no
   * properties (they would be one pod's).
   */
  @Override
  public EntityRef entity(Scope scope, String id, MeshRecord r) {
    ServiceIds dest = ids.idsOf(r.destService());
    return switch (scope) {
      case SERVICE -> EntityRef.service(id, r.layer(), dest.name);
      case SERVICE_INSTANCE -> {
        String instance = dest.instanceName(r.destInstance(), false);
        yield EntityRef.instance(id, r.layer(), dest.id, dest.name, dest.instance(instance), instance,
            properties(instance, r.destInstanceProperties()));
      }
      case ENDPOINT -> EntityRef.endpoint(id, r.layer(), dest.id, dest.name, dest.endpointName(endpoint(r), false));
      case SERVICE_RELATION -> {
        ServiceIds src = ids.idsOf(r.sourceService());
        yield EntityRef.serviceRelation(id, r.layer(), src.id, src.name, dest.id, dest.name);
      }
      case SERVICE_INSTANCE_RELATION -> {
        ServiceIds src = ids.idsOf(r.sourceService());
        String source = src.instanceName(r.sourceInstance(), false);
        String destination = dest.instanceName(r.destInstance(), false);
        yield EntityRef.instanceRelation(id, r.layer(),
            new EntityRef.Side(src.id, src.name, src.instance(source), source,
                properties(source, r.sourceInstanceProperties())),
            new EntityRef.Side(dest.id, dest.name, dest.instance(destination), destination,
                properties(destination, r.destInstanceProperties())));
      }
      case PROCESS, PROCESS_RELATION -> throw new IllegalArgumentException("mesh records feed no " + scope);
    };
  }

  private static Map<String, String> properties(String instanceName, Map<String, String> properties) {
    return ChildBudgets.OVERFLOW.equals(instanceName) ? Map.of() : properties;
  }

  /** A labelled sample (e.g. per upstream cluster) is its own entity under the instance. */
  private static String instanceEntity(MeshRecord r, String instanceId) {
    return r instanceof SampleRecord s && !s.label().isEmpty() ? EntityIds.labelled(instanceId, s.label()) : instanceId;
  }

  private static String endpoint(MeshRecord r) {
    return r instanceof CallRecord c ? c.endpoint() : "";
  }
}
