package io.sextant.server.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.server.config.ConfigKeys;
import io.sextant.server.config.Plugins;
import org.junit.jupiter.api.Test;

/** The server's receiver list and the configuration it validates cannot drift apart. */
class ReceiverWiringTest {
  @Test
  void everyReceiversKeysAreKnownToTheConfiguration() {
    for (ReceiverFactory factory : Plugins.RECEIVERS) {
      assertThat(ConfigKeys.ALL).as(factory.name()).containsAll(factory.keys());
      assertThat(ConfigKeys.ALL).extracting(k -> k.path()).as(factory.name()).contains(factory.enabledKey());
    }
  }
}
