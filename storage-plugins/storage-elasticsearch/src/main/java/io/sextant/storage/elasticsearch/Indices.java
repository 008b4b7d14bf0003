package io.sextant.storage.elasticsearch;

import io.sextant.api.time.Step;

/**
 * Index naming: time-based indices per data kind, so retention is dropping whole indices and a
 * query touches only the days it needs. Minute and hour metrics and topology use daily indices,
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

  String topology(long minuteBucket) {
    return prefix + "-topology-" + minuteBucket / 10_000;
  }

  String topologyPattern() {
    return prefix + "-topology-*";
  }

  String metadata() {
    return prefix + "-metadata";
  }

  String prefix() {
    return prefix;
  }
}
