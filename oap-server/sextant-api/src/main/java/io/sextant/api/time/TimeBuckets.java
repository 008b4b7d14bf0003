package io.sextant.api.time;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Time buckets in SkyWalking's format: a minute is {@code yyyyMMddHHmm}, an hour {@code yyyyMMddHH},
 * a day {@code yyyyMMdd}, all as longs in the server's time zone. Query durations use the same zone,
 * which {@code getTimeInfo} reports to clients.
 */
public final class TimeBuckets {
  private static final DateTimeFormatter MINUTE_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm");
  private static final DateTimeFormatter SECOND_TEXT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmmss");
  private static final DateTimeFormatter HOUR_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH");
  private static final DateTimeFormatter DAY_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd");

  private final ZoneId zone;
  private final Clock clock;
  /** The last epoch minute converted and its bucket; nearly every record hits it. */
  private volatile long[] lastMinute = {Long.MIN_VALUE, 0};

  public TimeBuckets(ZoneId zone, Clock clock) {
    this.zone = zone;
    this.clock = clock;
  }

  public ZoneId zone() {
    return zone;
  }

  public long nowMillis() {
    return clock.millis();
  }

  /** The minute bucket holding the given instant. */
  public long minuteBucket(long epochMillis) {
    long epochMinute = Math.floorDiv(epochMillis, 60_000L);
    long[] cached = lastMinute;
    if (cached[0] == epochMinute) {
      return cached[1];
    }
    long bucket = toBucket(LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), zone), Step.MINUTE);
    lastMinute = new long[] {epochMinute, bucket};
    return bucket;
  }

  public long currentMinuteBucket() {
    return minuteBucket(clock.millis());
  }

  /** The bucket of the given step that contains a minute bucket. */
  public static long rollup(long minuteBucket, Step step) {
    return switch (step) {
      case MINUTE -> minuteBucket;
      case HOUR -> minuteBucket / 100;
      case DAY -> minuteBucket / 10_000;
    };
  }

  /** First instant of a bucket. */
  public long startMillis(long bucket, Step step) {
    return toLocal(bucket, step).atZone(zone).toInstant().toEpochMilli();
  }

  /** The bucket {@code count} steps after (or before, if negative) the given one. */
  public static long plus(long bucket, Step step, long count) {
    LocalDateTime t = toLocal(bucket, step);
    return toBucket(t.plus(count * step.minutes(), ChronoUnit.MINUTES), step);
  }

  /** All buckets from start to end inclusive; refuses ranges longer than {@code maxPoints}. */
  public static List<Long> range(long start, long end, Step step, int maxPoints) {
    List<Long> out = new ArrayList<>();
    LocalDateTime t = toLocal(start, step);
    LocalDateTime last = toLocal(end, step);
    while (!t.isAfter(last)) {
      if (out.size() == maxPoints) {
        throw new IllegalArgumentException(
            "duration spans more than " + maxPoints + " " + step.name().toLowerCase(Locale.ROOT) + " points");
      }
      out.add(toBucket(t, step));
      t = t.plus(step.minutes(), ChronoUnit.MINUTES);
    }
    return out;
  }

  /**
   * Parses a query-protocol duration bound ({@code yyyy-MM-dd HHmm} for MINUTE, {@code yyyy-MM-dd
   * HH} for HOUR, {@code yyyy-MM-dd} for DAY; a SECOND bound is truncated to its minute).
   */
  public static long parse(String text, Step step) {
    try {
      return switch (step) {
        case MINUTE ->
            text.trim().length() == 17
                ? toBucket(LocalDateTime.parse(text.trim(), SECOND_TEXT), Step.MINUTE)
                : toBucket(LocalDateTime.parse(text.trim(), MINUTE_TEXT), Step.MINUTE);
        case HOUR -> toBucket(LocalDateTime.parse(text.trim() + "00", MINUTE_TEXT), Step.HOUR);
        case DAY ->
            toBucket(LocalDateTime.parse(text.trim() + " 0000", MINUTE_TEXT), Step.DAY);
      };
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "time '" + text + "' does not match the " + step + " format " + pattern(step), e);
    }
  }

  public static String pattern(Step step) {
    return switch (step) {
      case MINUTE -> "yyyy-MM-dd HHmm";
      case HOUR -> "yyyy-MM-dd HH";
      case DAY -> "yyyy-MM-dd";
    };
  }

  /** Formats a bucket back into the query-protocol text form. */
  public static String format(long bucket, Step step) {
    LocalDateTime t = toLocal(bucket, step);
    return switch (step) {
      case MINUTE -> MINUTE_TEXT.format(t);
      case HOUR -> HOUR_TEXT.format(t);
      case DAY -> DAY_TEXT.format(t);
    };
  }

  static LocalDateTime toLocal(long bucket, Step step) {
    long b = bucket;
    int minute = 0;
    int hour = 0;
    if (step == Step.MINUTE) {
      minute = (int) (b % 100);
      b /= 100;
    }
    if (step != Step.DAY) {
      hour = (int) (b % 100);
      b /= 100;
    }
    int day = (int) (b % 100);
    b /= 100;
    int month = (int) (b % 100);
    int year = (int) (b / 100);
    return LocalDateTime.of(year, month, day, hour, minute);
  }

  static long toBucket(LocalDateTime t, Step step) {
    long day = t.getYear() * 10_000L + t.getMonthValue() * 100L + t.getDayOfMonth();
    return switch (step) {
      case DAY -> day;
      case HOUR -> day * 100 + t.getHour();
      case MINUTE -> (day * 100 + t.getHour()) * 100 + t.getMinute();
    };
  }
}
