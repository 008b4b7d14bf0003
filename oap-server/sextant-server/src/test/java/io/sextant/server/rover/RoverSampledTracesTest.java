package io.sextant.server.rover;

import java.util.Map;

/** Rover's sampled traces end to end on the memory store. */
class RoverSampledTracesTest extends RoverSampledTraces {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
