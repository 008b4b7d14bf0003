package io.sextant.server.rover;

import java.util.Map;

/** Rover's access log end to end on the memory store. */
class RoverAccessLogEndToEndTest extends RoverAccessLogEndToEnd {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
