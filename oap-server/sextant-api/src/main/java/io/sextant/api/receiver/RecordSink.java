package io.sextant.api.receiver;

import io.sextant.api.model.Observation;

/**
 * The only thing a receiver talks to. Must not block: receivers call it from network threads.
 * Implementations are thread-safe.
 */
public interface RecordSink {
  /** Takes one observation (a call, flow, proxy statistic or Rover meter value) to aggregate. */
  Admission offer(Observation observation);

  /**
   * Runs {@code offers} (the {@link #offer} calls for one client message) as one batch. A sink that
   * keeps what it accepts on disk writes a batch with one call, before {@code batch} returns, so
   * what a receiver counted as accepted is durable; it may wait briefly while the sink takes a
   * consistent copy of its state. Receivers offer each message's records through it.
   */
  default void batch(Runnable offers) {
    offers.run();
  }
}
