package io.sextant.core.alarm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.VersionConflictException;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.alarm.AlarmState.Pending;
import io.sextant.core.alarm.AlarmState.Status;
import io.sextant.core.alarm.hook.HookCall;
import io.sextant.core.alarm.hook.HookDispatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates every rule once per closed minute and acts on what changed. Every collector runs one,
 * with no coordinator: the state of each (rule, entity) is a management document written with the
 * version it replaces, so of all collectors deciding a minute exactly one succeeds, and only it
 * stores the alarm and calls the hooks. What it must still deliver is kept in the document
 * ({@link Pending}) until every hook answered, so a collector that dies mid-delivery leaves it to
 * another after {@code takeoverMillis}.
 */
public final class AlarmEngine {
  private static final Logger LOG = LoggerFactory.getLogger(AlarmEngine.class);
  private static final int CONFLICT_RETRIES = 5;
  /** Minutes a restarted or paused evaluator catches up; older ones are not evaluated. */
  private static final int MAX_CATCH_UP_MINUTES = 5;

  private final StorageComponent storage;
  private final RuleEvaluator evaluator;
  private final TimeBuckets buckets;
  private final AlarmRules rules;
  private final HookDispatcher dispatcher;
  private final Executor settle;
  private final long closedAfterMillis;
  private final long takeoverMillis;
  private final Counter fired;
  private final Counter recovered;
  private final Counter lostRaces;
  private final Counter failures;
  private final Counter skippedEntities;
  private final Counter refusedEntities;
  private final int maxAlarmedPerRule;
  private final Counter takenOver;
  private final Timer evaluation;
  private volatile long lastMinute;
  /**
   * When a tick looks for expired claims again: when the oldest claim seen at the last look
   * expires, and {@code takeoverMillis} after that look at the latest (a claim made after it
   * expires later). So a dead collector's delivery waits at most a tick past {@code
   * takeoverMillis}, not for a minute to close.
   */
  private volatile long nextTakeoverMillis = Long.MAX_VALUE;

  /**
   * @param closedAfterMillis how long after a minute's end all collectors have stored it (the grace
   *     minutes, the closed-minute collection interval and a margin)
   * @param settle where delivery outcomes are written back (off the hook threads)
   */
  public AlarmEngine(StorageComponent storage, RuleEvaluator evaluator, TimeBuckets buckets,
      AlarmRules rules, HookDispatcher dispatcher, Executor settle,
      long closedAfterMillis, long takeoverMillis, int maxAlarmedPerRule, MeterRegistry registry) {
    this.storage = storage;
    this.evaluator = evaluator;
    this.buckets = buckets;
    this.rules = rules;
    this.dispatcher = dispatcher;
    this.settle = settle;
    this.closedAfterMillis = closedAfterMillis;
    this.takeoverMillis = takeoverMillis;
    this.maxAlarmedPerRule = maxAlarmedPerRule;
    this.fired = Counter.builder("sextant_alarms_fired").description("alarms fired by this collector")
        .register(registry);
    this.recovered = Counter.builder("sextant_alarms_recovered")
        .description("alarms this collector declared recovered").register(registry);
    this.lostRaces = Counter.builder("sextant_alarm_decisions_taken_elsewhere")
        .description("minutes of an entity another collector decided first").register(registry);
    this.failures = Counter.builder("sextant_alarm_rule_failures")
        .description("rule evaluations that failed (storage errors); the next minute tries again")
        .register(registry);
    this.skippedEntities = Counter.builder("sextant_alarm_entities_skipped")
        .description("entities past alarm.maxEntitiesPerRule, not evaluated").register(registry);
    this.refusedEntities = Counter.builder("sextant_alarm_entities_refused")
        .description("broken minutes of entities not alarmed: their rule has alarm.maxAlarmedEntitiesPerRule on")
        .register(registry);
    this.takenOver = Counter.builder("sextant_alarm_deliveries_taken_over")
        .description("deliveries another collector left unfinished, made by this one").register(registry);
    this.evaluation = Timer.builder("sextant_alarm_evaluation").description("one minute's evaluation of all rules")
        .register(registry);
  }

  /** What a (draft) rule would have fired over the last {@code minutes} closed minutes. */
  public AlarmDryRun.Result dryRun(AlarmRule rule, int minutes) {
    return AlarmDryRun.run(rule, evaluator, buckets, lastClosedMinute(), minutes);
  }

  /** The shared states of a rule's alarmed entities (firing, silenced, observing recovery). */
  public List<AlarmState> states(String ruleName) {
    String prefix = ruleName + "|";
    return storage.management().list(AlarmState.KIND).stream().filter(d -> d.id().startsWith(prefix))
        .map(d -> AlarmJson.state(d.body())).toList();
  }

  /** The newest minute every collector has stored: the one ended {@code closedAfterMillis} ago. */
  public long lastClosedMinute() {
    return TimeBuckets.plus(buckets.minuteBucket(buckets.nowMillis() - closedAfterMillis), Step.MINUTE, -1);
  }

  /**
   * Evaluates the minutes closed since the last call (at most a few); between minutes, makes the
   * deliveries whose claim expired. Called every few seconds.
   */
  public void tick() {
    long closed = lastClosedMinute();
    if (closed <= lastMinute) {
      if (buckets.nowMillis() > nextTakeoverMillis) {
        takeOverExpired();
      }
      return;
    }
    long from = lastMinute == 0 ? closed : TimeBuckets.plus(lastMinute, Step.MINUTE, 1);
    long oldest = TimeBuckets.plus(closed, Step.MINUTE, -(MAX_CATCH_UP_MINUTES - 1));
    for (long minute = Math.max(from, oldest); minute <= closed; minute = TimeBuckets.plus(minute, Step.MINUTE, 1)) {
      evaluate(minute);
    }
    lastMinute = closed;
  }

  /** Evaluates every rule over the window ending at {@code minute}, and takes over stale deliveries. */
  public void evaluate(long minute) {
    evaluation.record(() -> {
      ManagementStore management = storage.management();
      long listed = buckets.nowMillis();
      Map<String, ManagedDocument> states = new HashMap<>();
      management.list(AlarmState.KIND).forEach(d -> states.put(d.id(), d));
      Set<String> ruleNames = new HashSet<>();
      for (AlarmRule rule : rules.all()) {
        ruleNames.add(rule.name());
        if (rule.enabled()) {
          evaluate(rule, minute, states);
        }
      }
      long next = listed + takeoverMillis;
      for (ManagedDocument d : states.values()) {
        String rule = d.id().substring(0, d.id().indexOf('|'));
        if (!ruleNames.contains(rule)) {
          forget(d);
        } else {
          next = Math.min(next, takeOver(rule, d));
        }
      }
      nextTakeoverMillis = next;
    });
  }

  /** Makes the deliveries whose claim expired, between two minutes' evaluations. */
  private void takeOverExpired() {
    Set<String> ruleNames = new HashSet<>();
    rules.all().forEach(r -> ruleNames.add(r.name()));
    long next = buckets.nowMillis() + takeoverMillis;
    for (ManagedDocument d : storage.management().list(AlarmState.KIND)) {
      String rule = d.id().substring(0, d.id().indexOf('|'));
      if (ruleNames.contains(rule)) { // a removed rule's states are forgotten at the next minute
        next = Math.min(next, takeOver(rule, d));
      }
    }
    nextTakeoverMillis = next;
  }

  private void evaluate(AlarmRule rule, long minute, Map<String, ManagedDocument> states) {
    RuleEvaluator.Outcome outcome;
    try {
      outcome = evaluator.evaluate(rule, minute);
    } catch (RuntimeException e) {
      failures.increment();
      LOG.warn("alarm rule {} could not be evaluated for minute {}: {}", rule.name(), minute, e.toString());
      return;
    }
    skippedEntities.increment(outcome.skipped());
    Set<String> seen = new HashSet<>();
    String prefix = rule.name() + "|";
    // States are documents every collector shares: a rule broken by every endpoint at once must not
    // fill the store, so past the bound new entities are counted, not alarmed.
    int alarmed = (int) states.keySet().stream().filter(id -> id.startsWith(prefix)).count();
    for (RuleEvaluator.Verdict v : outcome.verdicts()) {
      String id = AlarmState.id(rule.name(), v.entity().id());
      seen.add(id);
      ManagedDocument doc = states.get(id);
      if (doc == null && v.breached() && alarmed >= maxAlarmedPerRule) {
        refusedEntities.increment();
        continue;
      }
      if (decide(rule, v.entity(), v, doc, minute) && doc == null) {
        alarmed++;
      }
    }
    // An alarmed entity without data in the window keeps no state, as in SkyWalking (its window
    // expires): the alarm ends without a recovery. What is still to deliver stays until delivered.
    for (ManagedDocument d : List.copyOf(states.values())) {
      if (d.id().startsWith(prefix) && !seen.contains(d.id()) && AlarmJson.state(d.body()).pending().isEmpty()) {
        forget(d);
        states.remove(d.id());
      }
    }
  }

  /** Moves one entity's state by one minute, unless another collector already did; true if this one did. */
  private boolean decide(AlarmRule rule, AlarmEntity entity, RuleEvaluator.Verdict verdict, ManagedDocument doc,
      long minute) {
    String id = AlarmState.id(rule.name(), entity.id());
    boolean breached = verdict.breached();
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      AlarmState before = doc == null ? AlarmState.normal(entity.id()) : AlarmJson.state(doc.body());
      if (doc != null && before.lastMinute() >= minute) {
        lostRaces.increment();
        return false;
      }
      if (doc == null && !breached) {
        return false;
      }
      long now = buckets.nowMillis();
      List<String> hooks = rules.hooks().idsFor(rule);
      AlarmMessage alarm = breached ? AlarmMessage.fired(rule, entity, minute, now, hooks, verdict.snapshot()) : null;
      AlarmTransitions.Step step = AlarmTransitions.next(rule, before, breached, minute, alarm, now);
      // A minute either fires an alarm or recovers one, never both.
      AlarmMessage told = step.fired() != null ? step.fired() : step.recovered();
      Pending toDeliver = told == null ? null : new Pending(told, hooks, now);
      AlarmState next = toDeliver == null ? step.next() : step.next().withPending(toDeliver);
      try {
        store(id, next, doc);
      } catch (VersionConflictException e) {
        doc = storage.management().get(AlarmState.KIND, id).orElse(null);
        continue;
      }
      if (step.fired() != null) {
        fired.increment();
        LOG.info("alarm {}: {} ({})", rule.name(), step.fired().alarmMessage(), step.fired().uuid());
      }
      if (step.recovered() != null) {
        recovered.increment();
        LOG.info("alarm {} recovered: {} ({})", rule.name(), entity.name(), step.recovered().uuid());
      }
      // One delivery at a time per entity, in order: a recovery never overtakes its alarm.
      if (before.pending().isEmpty() && toDeliver != null) {
        deliver(rule.name(), entity.id(), toDeliver);
      }
      return true;
    }
    lostRaces.increment();
    return false;
  }

  /** A stored state, or none when it is the resting one; versions checked both ways. */
  private void store(String id, AlarmState next, ManagedDocument doc) {
    ManagementStore management = storage.management();
    if (resting(next)) {
      if (doc != null && !management.delete(AlarmState.KIND, id, doc.version())) {
        throw new VersionConflictException(AlarmState.KIND, id, doc.version());
      }
    } else {
      management.put(AlarmState.KIND, id, AlarmJson.stateBody(next), doc == null ? 0 : doc.version());
    }
  }

  private static boolean resting(AlarmState s) {
    return s.status() == Status.NORMAL && s.silenceLeft() == 0 && s.pending().isEmpty();
  }

  /** Stores the alarm, then calls its hooks; each answer (or give-up) is written back to the state. */
  private void deliver(String ruleName, String entityId, Pending p) {
    try {
      storage.records().write(List.of(AlarmRecords.toRecord(p.message(), entityId)));
    } catch (RuntimeException e) {
      LOG.warn("alarm {} not stored yet ({}); it is delivered again after {} s", p.message().uuid(), e.toString(),
          takeoverMillis / 1000);
      return;
    }
    if (p.hooks().isEmpty()) {
      settle.execute(() -> delivered(ruleName, entityId, p, null));
    }
    for (String hook : p.hooks()) {
      List<HookCall> calls;
      try {
        calls = rules.hooks().calls(hook, p.message());
      } catch (RuntimeException e) {
        LOG.warn("alarm {}: hook {} cannot be called: {}", p.message().uuid(), hook, e.getMessage());
        settle.execute(() -> delivered(ruleName, entityId, p, hook));
        continue;
      }
      dispatcher.deliver(hook, calls)
          .whenComplete((ok, e) -> settle.execute(() -> delivered(ruleName, entityId, p, hook)));
    }
  }

  /**
   * Removes a delivered hook (all of them when {@code hook} is null) from the state's outbox; once
   * the alarm is done with every hook, the next one waiting for this entity goes.
   */
  private void delivered(String ruleName, String entityId, Pending p, String hook) {
    String id = AlarmState.id(ruleName, entityId);
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      try {
        ManagedDocument doc = storage.management().get(AlarmState.KIND, id).orElse(null);
        if (doc == null) {
          return;
        }
        AlarmState s = AlarmJson.state(doc.body());
        List<Pending> left = new ArrayList<>();
        boolean finished = false;
        for (Pending q : s.pending()) {
          if (!same(q, p)) {
            left.add(q);
            continue;
          }
          List<String> hooksLeft = new ArrayList<>(q.hooks());
          if (hook == null) {
            hooksLeft.clear();
          } else {
            hooksLeft.remove(hook);
          }
          if (hooksLeft.isEmpty()) {
            finished = true;
          } else {
            left.add(new Pending(q.message(), hooksLeft, q.claimedMillis()));
          }
        }
        store(id, s.withPending(left), doc);
        if (finished && !left.isEmpty()) {
          deliver(ruleName, entityId, left.get(0));
        }
        return;
      } catch (VersionConflictException e) {
        // Another minute's decision or delivery wrote it meanwhile: read again.
      } catch (RuntimeException e) {
        LOG.warn("alarm {}: recording its delivery failed ({}); it may be delivered again", p.message().uuid(),
            e.toString());
        return;
      }
    }
  }

  private static boolean same(Pending a, Pending b) {
    return a.message().uuid().equals(b.message().uuid())
        && a.message().recoveryTime() == b.message().recoveryTime();
  }

  /**
   * Delivers what a collector claimed more than {@code takeoverMillis} ago and did not finish.
   * Returns when the state's delivery may next be taken over: its claim's expiry, or never.
   */
  private long takeOver(String ruleName, ManagedDocument doc) {
    AlarmState s = AlarmJson.state(doc.body());
    long now = buckets.nowMillis();
    if (s.pending().isEmpty()) {
      return Long.MAX_VALUE;
    }
    if (s.pending().get(0).claimedMillis() >= now - takeoverMillis) {
      return s.pending().get(0).claimedMillis() + takeoverMillis; // its delivery is under way
    }
    List<Pending> claimed = new ArrayList<>(s.pending());
    Pending head = claimed.get(0);
    Pending mine = new Pending(head.message(), head.hooks(), now);
    claimed.set(0, mine);
    try {
      storage.management().put(AlarmState.KIND, doc.id(), AlarmJson.stateBody(s.withPending(claimed)),
          doc.version());
    } catch (VersionConflictException e) {
      return now; // someone else is at it: look again at the next tick
    }
    takenOver.increment();
    deliver(ruleName, s.entityId(), mine);
    return now + takeoverMillis;
  }

  private void forget(ManagedDocument d) {
    try {
      storage.management().delete(AlarmState.KIND, d.id(), d.version());
    } catch (VersionConflictException e) {
      // changed meanwhile: the next minute looks again
    }
  }
}
