package io.sextant.receiver.mesh;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Configuration of the mesh telemetry receiver ({@code receiver.mesh.*}): per-message limits. A
 * string over {@code maxStringLength}, more than {@code maxProperties} instance properties, or more
 * than {@code maxRecordsPerMessage} records is rejected and counted; the stream goes on. Message
 * bytes are bounded by the server's wire limit. Up to {@code maxCachedNames} names are kept to be
 * recognised by their bytes.
 */
public record MeshReceiverConfig(int maxStringLength, int maxProperties, int maxRecordsPerMessage,
    int maxCachedNames) {
  private static final String P = "receiver.mesh.";

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true, "serve skywalking.v3.ServiceMeshMetricService"),
      integer(P + "maxStringLength", 512, 16, 65536, "longest service/instance/endpoint name"),
      integer(P + "maxProperties", 64, 0, 10_000, "instance properties per record"),
      integer(P + "maxRecordsPerMessage", 10_000, 1, 1_000_000, "records in one message"),
      integer(P + "maxCachedNames", 100_000, 0, 1_000_000,
          "distinct names of up to 128 bytes (services, instances, endpoints) recognised by their bytes"));

  public static MeshReceiverConfig load(Settings s) {
    return new MeshReceiverConfig(s.integer(P + "maxStringLength"), s.integer(P + "maxProperties"),
        s.integer(P + "maxRecordsPerMessage"), s.integer(P + "maxCachedNames"));
  }
}
