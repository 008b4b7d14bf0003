package io.sextant.core.alarm;

import java.util.List;
import java.util.Map;

/**
 * One alarm as SkyWalking's hooks send it and its query answers it: {@code uuid} identifies it
 * (one per rule, entity and minute it fired in, the same on every collector); {@code startTime}
 * is when the rule broke (the end of the minute that broke it), {@code recoveryTime} when it
 * recovered (0 while firing). {@code snapshot} is the evidence: the expression and the values of its
 * metrics in the window that broke it.
 */
public record AlarmMessage(String uuid, int scopeId, String scope, String name, String id0, String id1,
    String ruleName, String alarmMessage, long startTime, long recoveryTime, Map<String, String> tags,
    List<String> hooks, Snapshot snapshot) {
  public AlarmMessage {
    tags = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tags));
    hooks = List.copyOf(hooks);
  }

  /**
   * The alarm {@code rule} fires for {@code entity} in {@code minute}, at {@code millis}: its uuid is
   * derived from the three, so every collector (and a dry run) names the same alarm alike.
   */
  public static AlarmMessage fired(AlarmRule rule, AlarmEntity entity, long minute, long millis, List<String> hooks,
      List<RuleEvaluator.MetricValues> snapshot) {
    String key = rule.name() + "|" + entity.id() + "|" + minute;
    String uuid = java.util.UUID.nameUUIDFromBytes(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    return new AlarmMessage(uuid, entity.scopeId(), entity.scope().name(), entity.name(), entity.id0(), entity.id1(),
        rule.name(), rule.messageFor(entity), millis, 0, rule.tags(), hooks, new Snapshot(rule.expression(), snapshot));
  }

  /** The same alarm, recovered at {@code millis}. */
  public AlarmMessage recoveredAt(long millis) {
    return new AlarmMessage(uuid, scopeId, scope, name, id0, id1, ruleName, alarmMessage, startTime, millis, tags,
        hooks, snapshot);
  }

  public boolean recovered() {
    return recoveryTime > 0;
  }

  /** The expression and, per metric and label combination, its values over the rule's window. */
  public record Snapshot(String expression, List<RuleEvaluator.MetricValues> metrics) {
    public Snapshot {
      metrics = List.copyOf(metrics);
    }
  }
}
