package io.sextant.receiver.envoy.als;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.sextant.receiver.common.ServiceIdentity;

/**
 * The proxy that sends a stream: its node id (only ever shown to operators, never parsed for an
 * address: the IP in an Istio node id can belong to another pod), its own workload when the node
 * carries Istio's metadata ({@code null} otherwise: then found per entry by address, in Kubernetes
 * mode; a waypoint is named by its metadata only), and its role in the mesh.
 */
record Proxy(String nodeId, ServiceIdentity self, Role role) {
  /** What a proxy's entries describe, which decides who is on each side of them. */
  enum Role {
    /** Beside one workload: an entry is a call into it (inbound) or out of it (outbound). */
    SIDECAR,
    /** An ingress or egress gateway: the server side of traffic entering (or leaving) the mesh. */
    GATEWAY,
    /** An ambient-mode waypoint: every entry is a call through it, from a caller to a callee. */
    WAYPOINT;

    /**
     * From Istio's node id prefix, as SkyWalking 10.3 tells them apart: {@code router~} for gateways,
     * {@code waypoint~} for waypoints; anything else ({@code sidecar~}, unknown) stays a sidecar.
     */
    static Role of(Node node) {
      String id = node.getId();
      if (id.startsWith("router~")) {
        return GATEWAY;
      }
      if (id.startsWith("waypoint~")) {
        return WAYPOINT;
      }
      return SIDECAR;
    }
  }
}
