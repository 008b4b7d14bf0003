package io.sextant.server.rover;

import java.util.Map;

/** Rover's run end to end on the memory store. */
class RoverJourneyTest extends RoverJourney {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
