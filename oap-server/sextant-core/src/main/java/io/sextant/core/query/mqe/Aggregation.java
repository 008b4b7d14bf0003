package io.sextant.core.query.mqe;

import java.util.List;
import java.util.Locale;

/**
 * Aggregations that fold one series into a single value, as SkyWalking 10.1: empty values are skipped; avg, max, min
 * and latest of nothing are empty, sum of nothing is 0 and count counts the non-empty values. max, min and latest
 * pick a point and keep its id; avg, sum and count have none.
 */
enum Aggregation {
  AVG, COUNT, LATEST, SUM, MAX, MIN;

  /** The function name as written in an expression, e.g. {@code avg}. */
  String functionName() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Aggregation byName(String name) {
    for (Aggregation a : values()) {
      if (a.functionName().equals(name)) {
        return a;
      }
    }
    return null;
  }

  MqeValue apply(List<MqeValue> values) {
    MqeValue picked = null;
    double sum = 0;
    int count = 0;
    for (MqeValue v : values) {
      Double d = v.value();
      if (d == null) {
        continue;
      }
      count++;
      sum += d;
      boolean better = picked == null || switch (this) {
        case MAX -> d > picked.value();
        case MIN -> d < picked.value();
        case LATEST -> true; // values are in bucket order: the last non-null one is the latest
        default -> false;
      };
      if (better) {
        picked = v;
      }
    }
    return switch (this) {
      case AVG -> new MqeValue(null, count == 0 ? null : sum / count);
      case SUM -> new MqeValue(null, sum);
      case COUNT -> new MqeValue(null, (double) count);
      case MAX, MIN, LATEST -> picked == null ? new MqeValue(null, null) : picked;
    };
  }
}
