package io.sextant.core.query;

import io.sextant.api.storage.Retention;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A retention in SkyWalking's TTL shapes, in days, as both its GraphQL TTL queries and its
 * {@code /status/config/ttl} answer them: each kind of data, then its cold stage (-1: Sextant has
 * none).
 */
public final class SkyWalkingTtl {
  private static final List<String> RECORD_KINDS = List.of("normal", "trace", "zipkinTrace", "log",
      "browserErrorLog");

  private SkyWalkingTtl() {}

  /** {@code minute}, {@code hour}, {@code day}, then {@code coldMinute}, ... */
  public static Map<String, Integer> metrics(Retention r) {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("minute", r.minuteDays());
    m.put("hour", r.hourDays());
    m.put("day", r.dayDays());
    return withCold(m);
  }

  /** {@code normal}, {@code trace}, ... (every kind Sextant's records hold), then {@code coldNormal}, ... */
  public static Map<String, Integer> records(Retention r) {
    Map<String, Integer> m = new LinkedHashMap<>();
    RECORD_KINDS.forEach(kind -> m.put(kind, r.recordDays()));
    return withCold(m);
  }

  /** {@code coldMinute} for {@code minute}: SkyWalking's name of a kind's cold stage. */
  public static String cold(String kind) {
    return "cold" + Character.toUpperCase(kind.charAt(0)) + kind.substring(1);
  }

  private static Map<String, Integer> withCold(Map<String, Integer> hot) {
    Map<String, Integer> all = new LinkedHashMap<>(hot);
    hot.keySet().forEach(kind -> all.put(cold(kind), -1));
    return all;
  }
}
