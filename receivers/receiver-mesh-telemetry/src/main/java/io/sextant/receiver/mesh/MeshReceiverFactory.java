package io.sextant.receiver.mesh;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import java.util.List;

/** Makes the SkyWalking service-mesh telemetry receiver ({@code receiver.mesh.*}). */
public final class MeshReceiverFactory implements ReceiverFactory {
  @Override
  public String name() {
    return MeshTelemetryReceiver.NAME;
  }

  @Override
  public List<ConfigKey> keys() {
    return MeshReceiverConfig.KEYS;
  }

  @Override
  public Receiver create(ReceiverContext context) {
    return new MeshTelemetryReceiver(context.sink(), MeshReceiverConfig.load(context.settings()), context.meters());
  }
}
