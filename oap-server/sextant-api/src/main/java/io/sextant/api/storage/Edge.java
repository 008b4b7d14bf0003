package io.sextant.api.storage;

import io.sextant.api.model.DetectPoint;

/**
 * A topology edge: the source called the destination and {@code detectPoint} reported it.
 * {@code component} names the protocol (http, gRPC, tcp).
 */
public record Edge(
    EdgeScope scope, String sourceId, String destId, DetectPoint detectPoint, String component) {

  public String relationId() {
    return sourceId + "-" + destId;
  }
}
