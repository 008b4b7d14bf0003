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
