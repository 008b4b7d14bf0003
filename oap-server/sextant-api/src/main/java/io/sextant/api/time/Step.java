package io.sextant.api.time;

/** Granularity of a time bucket, as the query protocol's {@code Step} names them. */
public enum Step {
  MINUTE(1),
  HOUR(60),
  DAY(1440);

  private final int minutes;

  Step(int minutes) {
    this.minutes = minutes;
  }

  /** Length of one bucket of this step, in minutes. */
  public int minutes() {
    return minutes;
  }
}
