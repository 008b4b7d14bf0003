package io.sextant.receiver.ebpf.accesslog;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.KernelField;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.Observation;
import java.util.Map;

/**
 * Behind Istio's ztunnel (ambient mode) a connection is also mesh traffic: as SkyWalking's handler
 * does, its HTTP exchanges become MESH-layer calls and its writes and reads MESH-layer flows (bytes
 * sent, bytes received), so an ambient mesh without waypoints has the MESH topology and metrics too.
 * An end Rover could not name is the mesh's unknown peer.
 */
final class MeshTwins {
  private MeshTwins() {}

  /** The MESH view of {@code k}, or null (connects, accepts and closes have none). */
  static Observation of(KernelRecord k, String tlsMode) {
    return switch (k.operation()) {
      case HTTP -> new CallRecord(k.startTimeMillis(), k.startTimeMillis() + k.value(KernelField.LATENCY),
          mesh(k.sourceService()), mesh(k.sourceInstance()), mesh(k.destService()), mesh(k.destInstance()),
          k.endpoint(), (int) Math.min(Integer.MAX_VALUE, k.value(KernelField.LATENCY)), k.statusCode(), k.success(),
          CallProtocol.HTTP, k.detectPoint(), tlsMode, "", 0, 0, Layer.MESH, Map.of(), Map.of());
      case WRITE, READ -> {
        long bytes = k.value(KernelField.PACKAGE_SIZE);
        boolean sent = k.operation() == KernelOperation.WRITE;
        yield new FlowRecord(k.startTimeMillis(), k.startTimeMillis() + k.value(KernelField.DURATION) / 1_000_000,
            mesh(k.sourceService()), mesh(k.sourceInstance()), mesh(k.destService()), mesh(k.destInstance()),
            k.detectPoint(), tlsMode, "", 0, 0, sent ? 0 : bytes, sent ? bytes : 0, Layer.MESH, Map.of(), Map.of());
      }
      case CONNECT, ACCEPT, CLOSE -> null;
    };
  }

  private static String mesh(String name) {
    return KernelRecord.UNKNOWN.equals(name) ? MeshRecord.UNKNOWN_PEER : name;
  }
}
