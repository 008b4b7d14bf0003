package io.sextant.api.receiver;

import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.SampleRecord;

/**
 * The only thing a receiver talks to. Must not block: receivers call it from network threads.
 * Implementations are thread-safe.
 */
public interface RecordSink {
  Admission offerCall(CallRecord call);

  Admission offerFlow(FlowRecord flow);

  Admission offerSample(SampleRecord sample);
}
