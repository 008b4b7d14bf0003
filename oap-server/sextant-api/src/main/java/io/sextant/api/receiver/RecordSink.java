package io.sextant.api.receiver;

import io.sextant.api.model.Observation;

/**
 * The only thing a receiver talks to. Must not block: receivers call it from network threads.
 * Implementations are thread-safe.
 */
public interface RecordSink {
  /** Takes one observation (a call, flow, proxy statistic or Rover meter value) to aggregate. */
  Admission offer(Observation observation);
}
