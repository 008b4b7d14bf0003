package io.sextant.server.rover;

import java.util.Map;

/** Rover's process registration end to end on the memory store. */
class RoverProcessesEndToEndTest extends RoverProcessesEndToEnd {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
