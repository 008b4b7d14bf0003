package io.sextant.server.query;

import java.util.Map;

/** The end-to-end event contract on the memory store. */
class EventsEndToEndTest extends EventsEndToEnd {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
