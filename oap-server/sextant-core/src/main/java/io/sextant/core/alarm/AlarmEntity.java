package io.sextant.core.alarm;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Scope;
import io.sextant.core.query.mqe.MqeEntity;

/**
 * What an alarm is about, named as SkyWalking names it in an alarm message: a service by its name,
 * an instance as {@code <instance> of <service>}, an endpoint as {@code <endpoint> in <service>},
 * a relation as {@code <source> to <destination>}. {@code id0} and {@code id1} are SkyWalking's
 * (the entity's id, or a relation's source and destination ids).
 */
public record AlarmEntity(Scope scope, String id, String name, String id0, String id1, MqeEntity mqe) {

  /** SkyWalking's numeric scope id (DefaultScopeDefine), which alarm messages carry. */
  public int scopeId() {
    return switch (scope) {
      case SERVICE -> 1;
      case SERVICE_INSTANCE -> 2;
      case ENDPOINT -> 3;
      case SERVICE_RELATION -> 4;
      case SERVICE_INSTANCE_RELATION -> 5;
      case PROCESS -> 81;
      case PROCESS_RELATION -> 82;
    };
  }

  /**
   * The entity of a stored metric id of the given scope; throws {@link IllegalArgumentException}
   * for an id that is not one (a labelled entity, a malformed id).
   */
  public static AlarmEntity of(Scope scope, String id) {
    if (EntityIds.isLabelled(id)) {
      throw new IllegalArgumentException("a labelled entity has no alarm of its own: " + id);
    }
    return switch (scope) {
      case SERVICE -> {
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(id);
        yield new AlarmEntity(scope, id, s.name(), id, "", entity(s, null, null, null, null, null));
      }
      case SERVICE_INSTANCE -> {
        EntityIds.ChildIdParts c = EntityIds.parseChildId(id);
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(c.serviceId());
        yield new AlarmEntity(scope, id, c.name() + " of " + s.name(), id, "", entity(s, c.name(), null, null, null,
            null));
      }
      case ENDPOINT -> {
        EntityIds.ChildIdParts c = EntityIds.parseChildId(id);
        EntityIds.ServiceIdParts s = EntityIds.parseServiceId(c.serviceId());
        yield new AlarmEntity(scope, id, c.name() + " in " + s.name(), id, "", entity(s, null, c.name(), null, null,
            null));
      }
      case SERVICE_RELATION -> {
        String[] ends = ends(id);
        EntityIds.ServiceIdParts source = EntityIds.parseServiceId(ends[0]);
        EntityIds.ServiceIdParts dest = EntityIds.parseServiceId(ends[1]);
        yield new AlarmEntity(scope, id, source.name() + " to " + dest.name(), ends[0], ends[1],
            entity(source, null, null, dest, null, null));
      }
      case SERVICE_INSTANCE_RELATION -> {
        String[] ends = ends(id);
        EntityIds.ChildIdParts source = EntityIds.parseChildId(ends[0]);
        EntityIds.ChildIdParts dest = EntityIds.parseChildId(ends[1]);
        EntityIds.ServiceIdParts sourceService = EntityIds.parseServiceId(source.serviceId());
        EntityIds.ServiceIdParts destService = EntityIds.parseServiceId(dest.serviceId());
        yield new AlarmEntity(scope, id, source.name() + " of " + sourceService.name() + " to " + dest.name()
            + " of " + destService.name(), ends[0], ends[1],
            entity(sourceService, source.name(), null, destService, dest.name(), null));
      }
      case PROCESS, PROCESS_RELATION ->
          throw new IllegalArgumentException("alarms on " + scope + " metrics are not built");
    };
  }

  private static MqeEntity entity(EntityIds.ServiceIdParts service, String instance, String endpoint,
      EntityIds.ServiceIdParts dest, String destInstance, String destEndpoint) {
    return new MqeEntity(service.name(), service.normal(), instance, endpoint, null,
        dest == null ? null : dest.name(), dest == null ? null : dest.normal(), destInstance, destEndpoint, null);
  }

  /** A relation id's two ends: ids never hold '-' (Base64 without it, '.', '_'), so the first one splits. */
  private static String[] ends(String relationId) {
    int dash = relationId.indexOf('-');
    if (dash <= 0 || dash == relationId.length() - 1) {
      throw new IllegalArgumentException("malformed relation id: " + relationId);
    }
    return new String[] {relationId.substring(0, dash), relationId.substring(dash + 1)};
  }
}
