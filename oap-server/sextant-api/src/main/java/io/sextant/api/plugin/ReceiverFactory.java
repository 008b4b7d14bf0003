package io.sextant.api.plugin;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.receiver.Receiver;
import java.util.List;

/**
 * Makes one receiver. {@link #keys()} are the keys it reads, under {@code receiver.<name>.}, and
 * include {@code receiver.<name>.enabled}: the server creates only enabled receivers.
 */
public interface ReceiverFactory {
  String name();

  List<ConfigKey> keys();

  Receiver create(ReceiverContext context);

  /** The key switching this receiver on or off. */
  default String enabledKey() {
    return "receiver." + name() + ".enabled";
  }
}
