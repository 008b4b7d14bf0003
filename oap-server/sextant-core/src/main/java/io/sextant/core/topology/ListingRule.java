package io.sextant.core.topology;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.Source;

/**
 * The one rule deciding which services and instances are listed (services list, a layer's services,
 * layers, instance lists), as SkyWalking 10.1 decides it: an entity is listed when it reported its own
 * side of the traffic, never merely because someone else's client-side report named it.
 *
 * <ul>
 *   <li>Calls and flows (mesh telemetry, access logs): only a server-side report lists its
 *       destination's service, instance and endpoint (the single-entity scopes, which the dispatch
 *       feeds from server-side reports only). Relations list nothing: the destination of a call seen
 *       only from the client side is a topology node, not a listed service, and neither is the
 *       caller of a client-side report until it reports its own server side.
 *   <li>Proxy statistics (Envoy metrics, SkyWalking's MAL {@code serviceRelation}): the reporting
 *       side of a relation is listed, the source for client-side samples and the destination for
 *       server-side ones.
 * </ul>
 *
 * A caller outside the mesh ({@link MeshRecord#UNKNOWN_PEER}) is a node, never a listed service.
 */
final class ListingRule {
  private ListingRule() {}

  /** Whether the snapshot lists its (source-side) service, and for instance scopes its instance. */
  static boolean listsSource(Snapshot s) {
    if (MeshRecord.UNKNOWN_PEER.equals(s.entity().serviceName())) {
      return false;
    }
    return !isRelation(s.entity().scope()) || reportedBySample(s, DetectPoint.CLIENT);
  }

  /** Whether a relation snapshot lists its destination's service (and instance). */
  static boolean listsDest(Snapshot s) {
    return isRelation(s.entity().scope())
        && !MeshRecord.UNKNOWN_PEER.equals(s.entity().destServiceName())
        && reportedBySample(s, DetectPoint.SERVER);
  }

  private static boolean isRelation(Scope scope) {
    return scope.isRelation() && !scope.isProcess();
  }

  private static boolean reportedBySample(Snapshot s, DetectPoint side) {
    return s.group().source() == Source.SAMPLE && (s.detectPoints() & (1 << side.ordinal())) != 0;
  }
}
