package io.sextant.core.query.mqe;

import java.util.List;

/** Aggregations that fold one series into a single value. Nulls are skipped; no non-null value gives null. */
enum Aggregation {
  AVG, SUM, MAX, MIN, LATEST;

  /** The function name as written in an expression, e.g. {@code avg}. */
  String functionName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  static Aggregation byName(String name) {
    for (Aggregation a : values()) {
      if (a.functionName().equals(name)) {
        return a;
      }
    }
    return null;
  }

  Double apply(List<MqeValue> values) {
    Double acc = null;
    int count = 0;
    for (MqeValue v : values) {
      Double d = v.value();
      if (d == null) {
        continue;
      }
      count++;
      if (acc == null) {
        acc = d;
        continue;
      }
      acc = switch (this) {
        case AVG, SUM -> acc + d;
        case MAX -> Math.max(acc, d);
        case MIN -> Math.min(acc, d);
        case LATEST -> d; // values are in bucket order, so the last non-null one is the latest
      };
    }
    if (this == AVG && acc != null) {
      return acc / count;
    }
    return acc;
  }
}
