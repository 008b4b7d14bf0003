package io.sextant.api.receiver;

/** A sink's answer to an offered record. Only {@link #ACCEPTED} records will be counted. */
public enum Admission {
  ACCEPTED,
  /** The aggregation buffers are full; the receiver should push back on its client. */
  REJECTED_OVERLOADED,
  /** The record's time is outside what is retained; it cannot be stored. */
  REJECTED_TIME_RANGE
}
