package io.sextant.api.storage;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;

/**
 * A topology edge between two entities of {@code scope} (SERVICE, SERVICE_INSTANCE, PROCESS): the
 * source called the destination and {@code detectPoint} reported it. {@code component} names the
 * protocol (http, gRPC, tcp).
 */
public record Edge(Scope scope, String sourceId, String destId, DetectPoint detectPoint, String component) {

  /** The relation's id, as {@link EntityIds#relationId} spells it. */
  public String relationId() {
    return EntityIds.relationId(sourceId, destId);
  }
}
