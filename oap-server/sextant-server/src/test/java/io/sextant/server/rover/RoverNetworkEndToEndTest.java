package io.sextant.server.rover;

import java.util.Map;

/** Rover's meters end to end on the memory store. */
class RoverNetworkEndToEndTest extends RoverNetworkEndToEnd {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
