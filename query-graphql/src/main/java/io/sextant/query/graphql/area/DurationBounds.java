package io.sextant.query.graphql.area;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * A query-protocol {@code Duration}'s bounds as instants in the server's zone, at any step
 * SkyWalking's clients send (booster-ui 10.4 asks for alarms and events with {@code SECOND}).
 */
public record DurationBounds(ZoneId zone) {
  private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmmss");
  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm");

  /** The first millisecond of the bound's period, as SkyWalking reads a duration's start. */
  public long startMillis(String text, String step) {
    return start(text, step).atZone(zone).toInstant().toEpochMilli();
  }

  /** The first millisecond after the bound's period, as SkyWalking reads a duration's end. */
  public long endMillis(String text, String step) {
    LocalDateTime start = start(text, step);
    LocalDateTime end = switch (step) {
      case "SECOND" -> start.plusSeconds(1);
      case "MINUTE" -> start.plusMinutes(1);
      case "HOUR" -> start.plusHours(1);
      default -> start.plusDays(1);
    };
    return end.atZone(zone).toInstant().toEpochMilli();
  }

  private static LocalDateTime start(String text, String step) {
    if (text == null) {
      throw new IllegalArgumentException("duration start and end are required");
    }
    try {
      return switch (step) {
        case "SECOND" -> LocalDateTime.parse(text.trim(), SECOND);
        case "MINUTE" -> LocalDateTime.parse(text.trim(), MINUTE);
        case "HOUR" -> LocalDateTime.parse(text.trim() + "00", MINUTE);
        case "DAY" -> LocalDate.parse(text.trim()).atStartOfDay();
        default -> throw new IllegalArgumentException("unsupported duration step: " + step);
      };
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("time '" + text + "' does not match the " + step + " format "
          + switch (step) {
            case "SECOND" -> "yyyy-MM-dd HHmmss";
            case "MINUTE" -> "yyyy-MM-dd HHmm";
            case "HOUR" -> "yyyy-MM-dd HH";
            default -> "yyyy-MM-dd";
          }, e);
    }
  }
}
