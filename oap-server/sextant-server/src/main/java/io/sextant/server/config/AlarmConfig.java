package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.optionalString;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.time.Duration;
import java.util.List;

/** Alarms' configuration ({@code alarm.*}; docs/alarms.md). {@code settingsFile} is empty when not set. */
public record AlarmConfig(String settingsFile, int evaluationIntervalSeconds, Duration settle, int maxEntitiesPerRule,
    int maxAlarmedEntitiesPerRule, int hookQueueSize, int hookAttempts, Duration hookTimeout, Duration takeover) {
  private static final String P = "alarm.";

  public static final List<ConfigKey> KEYS = List.of(
      optionalString(P + "settingsFile",
          "SkyWalking-format alarm rules and hooks (alarm-settings.yml), re-read when it changes; empty: the"
              + " alarm-settings.yml next to application.yml, else the distribution's config/alarm-settings.yml"),
      integer(P + "evaluationIntervalSeconds", 5, 1, 60,
          "how often a collector looks for a newly closed minute to evaluate"),
      integer(P + "settleSeconds", 10, 0, 600,
          "margin after the grace minutes and the closed-minute collection before a minute is evaluated, so that"
              + " every collector has stored it"),
      integer(P + "maxEntitiesPerRule", 10_000, 1, 1_000_000,
          "entities one rule evaluates per minute; past it the rest are skipped and counted"),
      integer(P + "maxAlarmedEntitiesPerRule", 1000, 1, 1_000_000,
          "entities one rule may have alarmed at once (each a document every collector shares); past it new ones"
              + " are counted, not alarmed"),
      integer(P + "hookQueueSize", 1000, 1, 1_000_000,
          "hook deliveries queued or retrying at once; past it a delivery is dropped and counted"),
      integer(P + "hookAttempts", 5, 1, 100, "attempts per hook call (backoff 1 s, doubling) on errors, 429, 5xx"),
      integer(P + "hookTimeoutSeconds", 10, 1, 300, "connect and answer timeout of one hook call"),
      integer(P + "takeoverSeconds", 120, 10, 86_400,
          "a delivery a collector claimed and did not finish this long ago is made by another"));

  public static AlarmConfig load(Settings s) {
    return new AlarmConfig(s.string(P + "settingsFile"), s.integer(P + "evaluationIntervalSeconds"),
        Duration.ofSeconds(s.integer(P + "settleSeconds")), s.integer(P + "maxEntitiesPerRule"),
        s.integer(P + "maxAlarmedEntitiesPerRule"), s.integer(P + "hookQueueSize"), s.integer(P + "hookAttempts"),
        Duration.ofSeconds(s.integer(P + "hookTimeoutSeconds")), Duration.ofSeconds(s.integer(P + "takeoverSeconds")));
  }
}
