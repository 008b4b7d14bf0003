package io.sextant.api.model;

/**
 * What a receiver hands the aggregator: one normalised observation at a time, of traffic between
 * services ({@link MeshRecord}: an L7 call, an L4 flow, a proxy statistic), of processes
 * (SkyWalking Rover's meters, {@link ProcessSampleRecord}) or of a pod's connections seen from the
 * kernel (Rover's access log, {@link KernelRecord}). Sealed, so the core decides per kind with the
 * compiler's help.
 */
public sealed interface Observation permits MeshRecord, ProcessSampleRecord, KernelRecord {
  long startTimeMillis();

  Layer layer();

  /** The side that reported it. */
  DetectPoint detectPoint();

  /** SkyWalking's TLS mode of the connection: {@code NONE}, {@code TLS}, {@code mTLS}, or empty. */
  default String tlsMode() {
    return "";
  }
}
