package io.sextant.storage.elasticsearch;

import io.sextant.api.time.Step;

/**
 * Index naming: time-based indices per data kind, so retention is dropping whole indices and a
 * query touches only the days it needs. Minute and hour metrics and topology edges use daily indices,
 * day metrics monthly ones; metadata is one index.
 */
final class Indices {
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

  String metricsPattern(Step step) {
    return prefix + "-metrics-" + step.name().toLowerCase() + "-*";
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

  String prefix() {
    return prefix;
  }
}
