package io.sextant.api.receiver;

import io.sextant.api.model.CallRecord;
import io.sextant.api.model.FlowRecord;

/**
 * The only thing a receiver talks to. Must not block: receivers call it from network threads.
 * Implementations are thread-safe.
 */
public interface RecordSink {
  Admission offerCall(CallRecord call);

  Admission offerFlow(FlowRecord flow);
}
