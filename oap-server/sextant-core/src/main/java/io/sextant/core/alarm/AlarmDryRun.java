package io.sextant.core.alarm;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a draft rule would have done over stored minutes: the rule's metrics read once for the whole
 * range, then every minute evaluated and run through the same state machine as the live one, in
 * memory. Nothing is stored, no hook is called.
 */
public final class AlarmDryRun {
  /** Longest range a dry run covers: a day of minutes. */
  public static final int MAX_MINUTES = 1440;

  private AlarmDryRun() {}

  /** An alarm the rule would have fired; {@code recoveryTime} 0 when it would still be on. */
  public record Firing(String entity, String scope, long startTime, long recoveryTime, String message) {}

  public record Result(String rule, int minutes, int entities, List<Firing> alarms) {
    public Result {
      alarms = List.copyOf(alarms);
    }
  }

  /** Runs the rule over the minutes ending at {@code lastMinute}; times are the ends of minutes. */
  public static Result run(AlarmRule rule, RuleEvaluator evaluator, TimeBuckets buckets, long lastMinute,
      int minutes) {
    if (minutes < 1 || minutes > MAX_MINUTES) {
      throw new IllegalArgumentException("a dry run covers 1 to " + MAX_MINUTES + " minutes, not " + minutes);
    }
    long first = TimeBuckets.plus(lastMinute, Step.MINUTE, -(minutes - 1));
    RuleEvaluator.Span span = evaluator.read(rule, first, lastMinute);
    Map<String, AlarmState> states = new HashMap<>();
    Map<String, Integer> open = new HashMap<>();
    List<Firing> alarms = new ArrayList<>();
    int entities = 0;
    for (long minute = first; minute <= lastMinute; minute = TimeBuckets.plus(minute, Step.MINUTE, 1)) {
      long end = buckets.startMillis(TimeBuckets.plus(minute, Step.MINUTE, 1), Step.MINUTE);
      RuleEvaluator.Outcome outcome = span.evaluate(minute, null);
      entities = Math.max(entities, outcome.verdicts().size());
      for (RuleEvaluator.Verdict v : outcome.verdicts()) {
        AlarmEntity e = v.entity();
        AlarmState before = states.getOrDefault(e.id(), AlarmState.normal(e.id()));
        AlarmMessage candidate = v.breached() ? AlarmMessage.fired(rule, e, minute, end, List.of(), v.snapshot())
            : null;
        AlarmTransitions.Step step = AlarmTransitions.next(rule, before, v.breached(), minute, candidate, end);
        states.put(e.id(), step.next());
        if (step.fired() != null) {
          open.put(e.id(), alarms.size());
          alarms.add(new Firing(e.name(), e.scope().name(), end, 0, step.fired().alarmMessage()));
        }
        if (step.recovered() != null && open.containsKey(e.id())) {
          int i = open.remove(e.id());
          Firing f = alarms.get(i);
          alarms.set(i, new Firing(f.entity(), f.scope(), f.startTime(), end, f.message()));
        }
      }
    }
    return new Result(rule.name(), minutes, entities, alarms);
  }
}
