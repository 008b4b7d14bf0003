package io.sextant.receiver.event;

import io.sextant.api.event.Event;
import io.sextant.api.model.SkyWalkingLayers;
import io.sextant.receiver.common.Rejection;
import java.util.Map;

/**
 * Checks one reported event and turns it into an {@link Event}; returns the event or a {@link
 * Rejection}, never throws on bad input. As SkyWalking 10.1, an event needs a layer (its message
 * for a missing one is kept word for word), and a layer SkyWalking does not know is kept as {@code
 * UNDEFINED}. Beyond SkyWalking, a uuid is required (SkyWalking would merge every uuid-less event
 * into one) and every field is bounded. Whether a name and a source service are required depends on
 * what is stored (only the first report of an event must carry them): {@link EventWriter} checks.
 */
final class EventValidator {
  static final String MISSING_LAYER = "Layer field is required since v9.0.0, please upgrade your event report tools";

  private final EventReceiverConfig limits;

  EventValidator(EventReceiverConfig limits) {
    this.limits = limits;
  }

  Object toEvent(org.apache.skywalking.apm.network.event.v3.Event e) {
    if (e.getUuid().isEmpty()) {
      return new Rejection("missing_uuid", "uuid is required: the reports of one event are matched by it");
    }
    if (e.getLayer().isEmpty()) {
      return new Rejection("missing_layer", MISSING_LAYER);
    }
    String type = switch (e.getType()) {
      case Normal -> "Normal";
      case Error -> "Error";
      default -> null;
    };
    if (type == null) {
      return new Rejection("bad_type", "unknown event type " + e.getTypeValue());
    }
    Rejection tooLong = tooLong(e.getUuid(), e.getSource().getService(), e.getSource().getServiceInstance(),
        e.getSource().getEndpoint(), e.getName(), e.getLayer());
    if (tooLong != null) {
      return tooLong;
    }
    if (e.getMessage().length() > limits.maxMessageLength()) {
      return new Rejection("message_too_long", "a message of " + e.getMessage().length()
          + " characters exceeds the limit of " + limits.maxMessageLength());
    }
    if (e.getParametersCount() > limits.maxParameters()) {
      return new Rejection("too_many_parameters", e.getParametersCount() + " parameters exceed the limit of "
          + limits.maxParameters());
    }
    for (Map.Entry<String, String> p : e.getParametersMap().entrySet()) {
      tooLong = tooLong(p.getKey(), p.getValue());
      if (tooLong != null) {
        return tooLong;
      }
    }
    if (e.getStartTime() < 0 || e.getEndTime() < 0) {
      return new Rejection("bad_time", "startTime/endTime must not be negative");
    }
    String layer = SkyWalkingLayers.isKnown(e.getLayer()) ? e.getLayer() : "UNDEFINED";
    return new Event(e.getUuid(), e.getSource().getService(), e.getSource().getServiceInstance(),
        e.getSource().getEndpoint(), e.getName(), type, e.getMessage(), e.getParametersMap(), e.getStartTime(),
        e.getEndTime(), layer);
  }

  private Rejection tooLong(String... strings) {
    for (String s : strings) {
      if (s.length() > limits.maxStringLength()) {
        return new Rejection("string_too_long", "a name of " + s.length() + " characters exceeds the limit of "
            + limits.maxStringLength());
      }
    }
    return null;
  }
}
