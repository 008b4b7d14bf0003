package io.sextant.storage.elasticsearch;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;

/** Which time-based indices are past their retention. */
final class IndexRetention {
  private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");

  private IndexRetention() {}

  /** Non-negative if {@code index} should be deleted on {@code todayDay} (yyyyMMdd), else -1. */
  static long cutoff(String index, String prefix, long todayDay, ElasticsearchConfig config) {
    LocalDate today = LocalDate.parse(Long.toString(todayDay), DAY);
    String rest = index.substring(prefix.length());
    int dash = rest.lastIndexOf('-');
    if (dash < 0) {
      return -1;
    }
    String kind = rest.substring(0, dash);
    String date = rest.substring(dash + 1);
    try {
      LocalDate indexDay = date.length() == 6 ? LocalDate.parse(date + "01", DAY).plusMonths(1).minusDays(1)
          : LocalDate.parse(date, DAY);
      int keepDays = switch (kind) {
        case "-metrics-minute", "-edges", "-topology" -> config.minuteRetentionDays(); // -topology: before 0.1 edges
        case "-metrics-hour" -> config.hourRetentionDays();
        case "-metrics-day" -> config.dayRetentionDays();
        case "-records" -> config.recordRetentionDays();
        default -> -1;
      };
      return keepDays >= 0 && indexDay.isBefore(today.minusDays(keepDays)) ? 0 : -1;
    } catch (RuntimeException notOurs) {
      return -1;
    }
  }
}
