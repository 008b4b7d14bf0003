package io.sextant.core.query;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.util.List;

/** A parsed query-protocol {@code Duration}: inclusive start and end buckets of one step. */
public record QueryDuration(long start, long end, Step step) {

  /** Parses and validates; the message says what is wrong. */
  public static QueryDuration parse(String start, String end, String step, int maxPoints) {
    Step s;
    try {
      s = "SECOND".equals(step) ? Step.MINUTE : Step.valueOf(step);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("unsupported duration step: " + step);
    }
    long from = TimeBuckets.parse(start, s);
    long to = TimeBuckets.parse(end, s);
    if (from > to) {
      throw new IllegalArgumentException("duration start " + start + " is after end " + end);
    }
    QueryDuration d = new QueryDuration(from, to, s);
    d.buckets(maxPoints);
    return d;
  }

  public List<Long> buckets(int maxPoints) {
    return TimeBuckets.range(start, end, step, maxPoints);
  }

  /** First minute bucket inside the duration. */
  public long startMinute() {
    return switch (step) {
      case MINUTE -> start;
      case HOUR -> start * 100;
      case DAY -> start * 10_000;
    };
  }

  /** Last minute bucket inside the duration. */
  public long endMinute() {
    return switch (step) {
      case MINUTE -> end;
      case HOUR -> end * 100 + 59;
      case DAY -> end * 10_000 + 2359;
    };
  }
}
