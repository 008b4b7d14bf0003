package io.sextant.receiver.event;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import java.util.List;

/** Makes the SkyWalking event receiver ({@code receiver.event.*}). */
public final class EventReceiverFactory implements ReceiverFactory {
  @Override
  public String name() {
    return EventReceiver.NAME;
  }

  @Override
  public List<ConfigKey> keys() {
    return EventReceiverConfig.KEYS;
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return new EventReceiver(context.records(), EventReceiverConfig.load(context.settings()), context.meters());
  }
}
