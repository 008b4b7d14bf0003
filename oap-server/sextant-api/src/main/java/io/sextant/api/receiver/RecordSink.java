package io.sextant.api.receiver;

import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.model.SampleRecord;

/**
 * The only thing a receiver talks to. Must not block: receivers call it from network threads.
 * Implementations are thread-safe.
 */
public interface RecordSink {
  Admission offerCall(CallRecord call);

  Admission offerFlow(FlowRecord flow);

  Admission offerSample(SampleRecord sample);

  /**
   * A SkyWalking Rover meter value (process or process relation). The default refuses, so sinks
   * that never see Rover's meters (test doubles of other receivers) need not implement it.
   */
  default Admission offerProcessSample(ProcessSampleRecord sample) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no process samples");
  }
}
