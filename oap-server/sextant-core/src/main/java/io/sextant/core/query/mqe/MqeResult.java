package io.sextant.core.query.mqe;

import java.util.List;

/** Result of evaluating an expression; {@code error} is non-null (and type UNKNOWN) when it failed. */
public record MqeResult(ResultType type, List<MqeSeries> results, String error) {
  public MqeResult {
    results = results == null ? List.of() : List.copyOf(results);
  }

  static MqeResult of(ResultType type, List<MqeSeries> results) {
    return new MqeResult(type, results, null);
  }

  static MqeResult error(String message) {
    return new MqeResult(ResultType.UNKNOWN, List.of(), message);
  }
}
