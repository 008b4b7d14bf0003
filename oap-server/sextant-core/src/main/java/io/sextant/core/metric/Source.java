package io.sextant.core.metric;

/** Which normalised record kind a metric is computed from. */
public enum Source {
  /** L7 calls ({@link io.sextant.api.model.CallRecord}). */
  CALL,
  /** L4 flows ({@link io.sextant.api.model.FlowRecord}). */
  FLOW,
  /** Proxy statistics ({@link io.sextant.api.model.SampleRecord}). */
  SAMPLE,
  /** SkyWalking Rover's meters ({@link io.sextant.api.model.ProcessSampleRecord}). */
  PROCESS_SAMPLE
}
