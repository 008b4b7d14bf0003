package io.sextant.api.model;

import java.util.Map;

/** An observation of traffic between services (L7 call, L4 flow, proxy statistic): who talked to whom. */
public sealed interface MeshRecord extends Observation permits CallRecord, FlowRecord, SampleRecord {
  /**
   * The caller SkyWalking names for traffic entering the mesh from outside (a gateway whose caller
   * is not a known workload): a relation's source, never a service of its own.
   */
  String UNKNOWN_PEER = "UNKNOWN";

  String sourceService();

  String sourceInstance();

  String destService();

  String destInstance();

  /** The proxy's own latency (mesh telemetry); 0 for kinds that carry none (flows, statistics). */
  default long internalRequestLatencyNanos() {
    return 0;
  }

  default long internalResponseLatencyNanos() {
    return 0;
  }

  /** The instances' reported properties; empty for kinds that carry none. */
  default Map<String, String> sourceInstanceProperties() {
    return Map.of();
  }

  default Map<String, String> destInstanceProperties() {
    return Map.of();
  }
}
