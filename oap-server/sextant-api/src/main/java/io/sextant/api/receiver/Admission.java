package io.sextant.api.receiver;

/** A sink's answer to an offered record. Only {@link #ACCEPTED} records will be counted. */
public enum Admission {
  ACCEPTED,
  /** The aggregation buffers are full; the receiver should push back on its client. */
  REJECTED_OVERLOADED,
  /**
   * The record would create entities while new ones already hold their share of the buffers (a
   * flood of new names); records of known entities are still taken. Pushed back as overload is.
   */
  REJECTED_NEW_ENTITIES,
  /** The record's time is outside what is retained; it cannot be stored. */
  REJECTED_TIME_RANGE
}
