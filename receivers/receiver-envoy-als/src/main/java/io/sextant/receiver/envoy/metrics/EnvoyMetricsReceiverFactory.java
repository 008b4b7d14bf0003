package io.sextant.receiver.envoy.metrics;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import java.util.List;

/** Makes the Envoy metrics service receiver ({@code receiver.envoyMetrics.*}). */
public final class EnvoyMetricsReceiverFactory implements ReceiverFactory {
  @Override
  public String name() {
    return EnvoyMetricsReceiver.NAME;
  }

  @Override
  public List<ConfigKey> keys() {
    return EnvoyMetricsConfig.KEYS;
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return new EnvoyMetricsReceiver(context.sink(), EnvoyMetricsConfig.load(context.settings()), context.meters());
  }
}
