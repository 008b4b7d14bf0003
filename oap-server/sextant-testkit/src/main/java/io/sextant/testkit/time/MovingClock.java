package io.sextant.testkit.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock a test moves by hand: time passes in a test without waiting for it. */
public final class MovingClock extends Clock {
  private volatile long millis;

  public MovingClock(long millis) {
    this.millis = millis;
  }

  public void set(long millis) {
    this.millis = millis;
  }

  public void advance(Duration by) {
    millis += by.toMillis();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }
}
