package io.sextant.core.alarm;

import io.sextant.api.model.Scope;
import io.sextant.core.query.mqe.Expression;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One alarm rule as SkyWalking's {@code alarm-settings.yml} has it. {@code expression} answers 1
 * (breached) or 0 per entity over the last {@code period} closed minutes; {@code scope} is that of
 * the metrics it reads. An event rule ({@code events} not null) counts a service's matching events
 * over the period instead, and has no expression. {@code silencePeriod} minutes pass after an alarm
 * before the next one; {@code recoveryObservationPeriod} minutes unbroken end a firing alarm as
 * recovered. {@code
 * fromFile} rules are read-only through the API; {@code version} is the API's optimistic version
 * (0 for file rules).
 */
public record AlarmRule(String name, String expression, List<Window> windows, Scope scope, List<String> metrics,
    int period, int silencePeriod, int recoveryObservationPeriod, Set<String> includeNames,
    Set<String> excludeNames, Pattern includeNamesRegex, Pattern excludeNamesRegex, Map<String, String> tags,
    String message, List<String> hooks, boolean enabled, boolean fromFile, long version, EventCondition events) {
  /**
   * One expression over the last {@code period} minutes. A rule has one; a multiwindow rule (the
   * {@code windows:} key, Sextant's addition for SRE burn-rate alerts) breaks when all of its break.
   */
  public record Window(String expression, Expression parsed, int period) {}

  public AlarmRule {
    windows = List.copyOf(windows);
    metrics = List.copyOf(metrics);
    includeNames = Set.copyOf(includeNames);
    excludeNames = Set.copyOf(excludeNames);
    tags = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tags));
    hooks = List.copyOf(hooks);
  }

  /** Whether the rule watches the entity of this name (SkyWalking's include/exclude lists and regexes). */
  public boolean watches(String entityName) {
    if (!includeNames.isEmpty() && !includeNames.contains(entityName)) {
      return false;
    }
    if (excludeNames.contains(entityName)) {
      return false;
    }
    if (includeNamesRegex != null && !includeNamesRegex.matcher(entityName).matches()) {
      return false;
    }
    return excludeNamesRegex == null || !excludeNamesRegex.matcher(entityName).matches();
  }

  /** The message with {@code {name}} (and SkyWalking's other placeholders) filled in. */
  public String messageFor(AlarmEntity entity) {
    return message.replace("{name}", entity.name()).replace("{id}", entity.id());
  }
}
