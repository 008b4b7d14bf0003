package io.sextant.server.mesh;

import java.util.Map;

/** The end-to-end mesh contract on the embedded in-memory store. */
class MeshEndToEndIT extends MeshEndToEnd {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
