package io.sextant.storage.elasticsearch;

import io.sextant.api.time.Step;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Index naming: time-based indices per data kind, so retention is dropping whole indices and a
 * query touches only the days it needs. Minute and hour metrics and topology edges use daily indices,
 * day metrics monthly ones; records daily indices by UTC day (a record carries an instant, not a
 * bucket of the server's zone); metadata and management documents one index each.
 */
final class Indices {
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
  private static final int MAX_LISTED_DAYS = 31;
  private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyyMM");
  private final String prefix;

  Indices(String prefix) {
    this.prefix = prefix;
  }

  String metrics(Step step, long bucket) {
    return switch (step) {
      case MINUTE -> prefix + "-metrics-minute-" + bucket / 10_000;
      case HOUR -> prefix + "-metrics-hour-" + bucket / 100;
      case DAY -> prefix + "-metrics-day-" + bucket / 100;
    };
  }

  /**
   * The metrics indices buckets {@code [startBucket, endBucket]} of {@code step} fall in: the days
   * (months for DAY) themselves when they are few, so a search asks one shard instead of every
   * retained day's; else every metrics index of the step.
   */
  String metrics(Step step, long startBucket, long endBucket) {
    if (endBucket < startBucket) {
      return metricsPattern(step);
    }
    StringJoiner names = new StringJoiner(",");
    try {
      if (step == Step.DAY) {
        YearMonth first = YearMonth.parse(Long.toString(startBucket / 100), MONTH);
        YearMonth last = YearMonth.parse(Long.toString(endBucket / 100), MONTH);
        if (first.plusMonths(MAX_LISTED_DAYS).isBefore(last)) {
          return metricsPattern(step);
        }
        for (YearMonth m = first; !m.isAfter(last); m = m.plusMonths(1)) {
          names.add(metrics(step, Long.parseLong(MONTH.format(m)) * 100));
        }
      } else {
        long perDay = step == Step.MINUTE ? 10_000 : 100;
        LocalDate first = LocalDate.parse(Long.toString(startBucket / perDay), DateTimeFormatter.BASIC_ISO_DATE);
        LocalDate last = LocalDate.parse(Long.toString(endBucket / perDay), DateTimeFormatter.BASIC_ISO_DATE);
        if (first.plusDays(MAX_LISTED_DAYS).isBefore(last)) {
          return metricsPattern(step);
        }
        for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
          names.add(metrics(step, Long.parseLong(DateTimeFormatter.BASIC_ISO_DATE.format(d)) * perDay));
        }
      }
    } catch (DateTimeParseException e) {
      return metricsPattern(step); // not a bucket of this step: let the range filter find nothing
    }
    return names.toString();
  }

  String metricsPattern(Step step) {
    return prefix + "-metrics-" + step.name().toLowerCase(Locale.ROOT) + "-*";
  }

  /** Edge documents of the minute's day (one per edge, hour and writer). */
  String edges(long minuteBucket) {
    return prefix + "-edges-" + minuteBucket / 10_000;
  }

  String edgesPattern() {
    return prefix + "-edges-*";
  }

  String metadata() {
    return prefix + "-metadata";
  }

  /** Records of the UTC day holding {@code epochMillis}. */
  String records(long epochMillis) {
    return prefix + "-records-" + DAY.format(Instant.ofEpochMilli(epochMillis));
  }

  /**
   * The record indices a time range touches: the days themselves when they are few (a search
   * then skips the others without asking them), else every record index.
   */
  String records(long startMillis, long endMillis) {
    LocalDate first = LocalDate.ofInstant(Instant.ofEpochMilli(Math.max(0, startMillis)), ZoneOffset.UTC);
    LocalDate last = LocalDate.ofInstant(Instant.ofEpochMilli(Math.max(0, endMillis)), ZoneOffset.UTC);
    if (endMillis < startMillis || first.plusDays(MAX_LISTED_DAYS).isBefore(last)) {
      return recordsPattern();
    }
    StringJoiner days = new StringJoiner(",");
    for (LocalDate d = first; !d.isAfter(last); d = d.plusDays(1)) {
      days.add(prefix + "-records-" + DAY.format(d));
    }
    return days.toString();
  }

  String recordsPattern() {
    return prefix + "-records-*";
  }

  /** Documents Elasticsearch refused for good, kept with its answer (see {@code Bulk}). */
  String parked() {
    return prefix + "-parked";
  }

  String management() {
    return prefix + "-management";
  }

  String prefix() {
    return prefix;
  }
}
