package io.sextant.api.model;

import java.util.Map;

/** What every normalised record (L7 call or L4 flow) says about who talked to whom, and when. */
public sealed interface MeshRecord permits CallRecord, FlowRecord, SampleRecord, ProcessSampleRecord {
  /**
   * The caller SkyWalking names for traffic entering the mesh from outside (a gateway whose caller
   * is not a known workload): a relation's source, never a service of its own.
   */
  String UNKNOWN_PEER = "UNKNOWN";

  long startTimeMillis();

  String sourceService();

  String sourceInstance();

  String destService();

  String destInstance();

  DetectPoint detectPoint();

  Layer layer();

  /** SkyWalking's TLS mode of the connection: {@code NONE}, {@code TLS}, {@code mTLS}, or empty. */
  default String tlsMode() {
    return "";
  }

  /** The proxy's own latency (mesh telemetry); 0 for kinds that carry none (statistics, Rover's meters). */
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
