package io.sextant.receiver.envoy.als;

/** Which way a logged request went through the reporting proxy. */
enum Direction {
  /** Into the proxy's own workload: the proxy reports the server side. */
  INBOUND,
  /** Out of the proxy's workload to a peer: the proxy reports the client side. */
  OUTBOUND;

  /** Istio names clusters {@code inbound|port|...} and {@code outbound|port|subset|host}. */
  static Direction ofCluster(String upstreamCluster) {
    if (upstreamCluster.startsWith("inbound|")) {
      return INBOUND;
    }
    if (upstreamCluster.startsWith("outbound|")) {
      return OUTBOUND;
    }
    return null;
  }
}
