package io.sextant.receiver.event;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Configuration of the event receiver ({@code receiver.event.*}). An event with a name (uuid,
 * source, name, layer, parameter) over {@code maxStringLength}, a message over {@code
 * maxMessageLength} or more than {@code maxParameters} parameters is rejected and counted; the
 * stream goes on. At most {@code maxPendingEvents} events of all streams wait to be written; past
 * that a stream ends {@code RESOURCE_EXHAUSTED}. Message bytes are bounded by the server's wire
 * limit.
 */
public record EventReceiverConfig(int maxStringLength, int maxMessageLength, int maxParameters,
    int maxPendingEvents) {
  private static final String P = "receiver.event.";

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true, "serve skywalking.v3.EventService"),
      integer(P + "maxStringLength", 512, 16, 65536, "longest uuid, source name, event name, layer or parameter"),
      integer(P + "maxMessageLength", 10_000, 16, 1_000_000, "longest event message"),
      integer(P + "maxParameters", 64, 0, 10_000, "parameters per event"),
      integer(P + "maxPendingEvents", 10_000, 1, 1_000_000, "events of all streams waiting to be written"));

  public static EventReceiverConfig load(Settings s) {
    return new EventReceiverConfig(s.integer(P + "maxStringLength"), s.integer(P + "maxMessageLength"),
        s.integer(P + "maxParameters"), s.integer(P + "maxPendingEvents"));
  }
}
