package io.sextant.core.metric;

import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.SampleRecord;

/** Which kind of {@link Observation} a metric is computed from. */
public enum Source {
  /** L7 calls ({@link io.sextant.api.model.CallRecord}). */
  CALL,
  /** L4 flows ({@link io.sextant.api.model.FlowRecord}). */
  FLOW,
  /** Proxy statistics ({@link io.sextant.api.model.SampleRecord}). */
  SAMPLE,
  /** SkyWalking Rover's meters ({@link io.sextant.api.model.ProcessSampleRecord}). */
  PROCESS_SAMPLE,
  /** A pod's connections seen from the kernel by Rover ({@link io.sextant.api.model.KernelRecord}). */
  KERNEL;

  /** The kind of an observation. */
  public static Source of(Observation o) {
    if (o instanceof CallRecord) {
      return CALL;
    } else if (o instanceof FlowRecord) {
      return FLOW;
    } else if (o instanceof SampleRecord) {
      return SAMPLE;
    } else if (o instanceof ProcessSampleRecord) {
      return PROCESS_SAMPLE;
    } else if (o instanceof KernelRecord) {
      return KERNEL;
    }
    throw new IllegalArgumentException("unknown observation " + o.getClass().getName());
  }
}
