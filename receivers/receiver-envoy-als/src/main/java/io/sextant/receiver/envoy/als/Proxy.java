package io.sextant.receiver.envoy.als;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.sextant.receiver.common.ServiceIdentity;

/**
 * The proxy that sends a stream: its node id (only ever shown to operators, never parsed for an
 * address: the IP in an Istio node id can belong to another pod), its own workload when the node
 * carries Istio's metadata ({@code null} otherwise: then found per entry by address, in Kubernetes
 * mode), and whether it is a gateway.
 */
record Proxy(String nodeId, ServiceIdentity self, boolean gateway) {
  /** Istio gateways (ingress/egress) have node ids starting {@code router~}; sidecars {@code sidecar~}. */
  static boolean isGateway(Node node) {
    return node.getId().startsWith("router~");
  }
}
