package io.sextant.api.plugin;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.WarmUpTraffic;
import java.util.List;
import java.util.Optional;

/**
 * Makes one receiver. {@link #keys()} are the keys it reads, under {@code receiver.<name>.}, and
 * include {@code receiver.<name>.enabled}: the server creates only enabled receivers.
 */
public interface ReceiverFactory {
  String name();

  List<ConfigKey> keys();

  Receiver create(ReceiverContext context);

  /**
   * Traffic to warm this receiver up with before the collector reports ready (see {@link
   * WarmUpTraffic}); none by default. Receivers that aggregate what they take offer it; receivers
   * whose records go to storage as they are, or that need an agent's registration, do not.
   */
  default Optional<WarmUpTraffic> warmUpTraffic() {
    return Optional.empty();
  }

  /** The key switching this receiver on or off. */
  default String enabledKey() {
    return "receiver." + name() + ".enabled";
  }
}
