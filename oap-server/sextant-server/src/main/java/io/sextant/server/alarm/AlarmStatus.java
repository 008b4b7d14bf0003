package io.sextant.server.alarm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.core.alarm.AlarmEngine;
import io.sextant.core.alarm.AlarmEntity;
import io.sextant.core.alarm.AlarmJson;
import io.sextant.core.alarm.AlarmMessage;
import io.sextant.core.alarm.AlarmRules;
import io.sextant.core.alarm.AlarmState;
import io.sextant.core.alarm.RuleEvaluator;
import io.sextant.core.query.mqe.MqeValue;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * SkyWalking 10.4's alarm runtime status ({@code /status/alarm/rules}, {@code /status/alarm/{ruleId}},
 * {@code /status/alarm/{ruleId}/{entityName}}) in its JSON shape. SkyWalking asks every OAP node;
 * here every collector shares the alarm states through storage, so one answers for all (listed as
 * one instance, this collector).
 */
public final class AlarmStatus {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter END_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");

  private final AlarmRules rules;
  private final AlarmEngine engine;
  private final RuleEvaluator evaluator;
  private final String address;

  public AlarmStatus(AlarmRules rules, AlarmEngine engine, RuleEvaluator evaluator, String address) {
    this.rules = rules;
    this.engine = engine;
    this.evaluator = evaluator;
    this.address = address;
  }

  public String ruleList() {
    ObjectNode status = JSON.createObjectNode();
    ArrayNode list = status.putArray("ruleList");
    rules.all().forEach(r -> list.addObject().put("id", r.name()));
    return wrap(status);
  }

  /** A rule's settings and its alarmed entities; empty when there is no such rule. */
  public Optional<String> rule(String ruleId) {
    return rules.find(ruleId).map(r -> {
      ObjectNode s = JSON.createObjectNode();
      s.put("ruleId", r.name());
      s.put("expression", r.expression());
      s.put("period", r.period());
      s.put("silencePeriod", r.silencePeriod());
      s.put("recoveryObservationPeriod", r.recoveryObservationPeriod());
      s.put("additionalPeriod", 0);
      ArrayNode include = s.putArray("includeEntityNames");
      r.includeNames().forEach(include::add);
      ArrayNode exclude = s.putArray("excludeEntityNames");
      r.excludeNames().forEach(exclude::add);
      s.put("includeEntityNamesRegex", r.includeNamesRegex() == null ? "" : r.includeNamesRegex().pattern());
      s.put("excludeEntityNamesRegex", r.excludeNamesRegex() == null ? "" : r.excludeNamesRegex().pattern());
      ArrayNode running = s.putArray("runningEntities");
      for (AlarmState state : engine.states(r.name())) {
        AlarmEntity entity = AlarmEntity.of(r.scope(), state.entityId());
        running.addObject().put("scope", entity.scope().name()).put("name", entity.name())
            .put("formattedMessage", r.messageFor(entity));
      }
      ArrayNode tags = s.putArray("tags");
      r.tags().forEach((k, v) -> tags.addObject().put("key", k).put("value", v));
      ArrayNode hooks = s.putArray("hooks");
      rules.hooks().idsFor(r).forEach(hooks::add);
      ArrayNode metrics = s.putArray("includeMetrics");
      r.metrics().forEach(metrics::add);
      s.put("enabled", r.enabled());
      s.put("source", r.fromFile() ? "file" : "api");
      return wrap(s);
    });
  }

  /** One entity's window over the last closed minute and its state; empty when there is no such rule. */
  public Optional<String> entity(String ruleId, String entityName) {
    return rules.find(ruleId).map(r -> {
      long minute = engine.lastClosedMinute();
      ObjectNode s = JSON.createObjectNode();
      s.put("ruleId", r.name());
      s.put("expression", r.expression());
      s.put("endTime", LocalDateTime.parse(Long.toString(minute), DateTimeFormatter.ofPattern("yyyyMMddHHmm"))
          .format(END_TIME));
      s.put("additionalPeriod", 0);
      s.put("size", r.period());
      s.put("silencePeriod", r.silencePeriod());
      s.put("recoveryObservationPeriod", r.recoveryObservationPeriod());
      AlarmState state = engine.states(r.name()).stream()
          .filter(st -> AlarmEntity.of(r.scope(), st.entityId()).name().equals(entityName)).findFirst()
          .orElse(null);
      s.put("silenceCountdown", state == null ? -1 : state.silenceLeft() - 1);
      s.put("recoveryObservationCountdown", state == null ? r.recoveryObservationPeriod() : state.recoveryLeft());
      s.put("currentState", state == null ? "NORMAL" : state.status().name());
      s.put("entityName", entityName);
      ArrayNode window = s.putArray("windowValues");
      for (RuleEvaluator.Verdict v : evaluator.evaluate(r, minute, entityName).verdicts()) {
        for (RuleEvaluator.MetricValues mv : v.snapshot()) {
          for (int i = 0; i < mv.values().size(); i++) {
            MqeValue point = mv.values().get(i);
            ObjectNode slot = window.size() > i ? (ObjectNode) window.get(i) : window.addObject().put("index", i);
            ArrayNode metrics = slot.has("metrics") ? (ArrayNode) slot.get("metrics") : slot.putArray("metrics");
            metrics.addObject().put("name", mv.metric()).put("timeBucket", Long.parseLong(point.id()))
                .put("value", point.value() == null ? null : String.valueOf(point.value()));
          }
        }
        s.set("mqeMetricsSnapshot", AlarmJson.snapshot(new AlarmMessage.Snapshot(r.expression(), v.snapshot())));
      }
      if (state != null && state.firing() != null) {
        s.put("lastAlarmTime", state.firing().startTime());
        s.put("lastAlarmMessage", state.firing().alarmMessage());
        s.set("lastAlarmMqeMetricsSnapshot", AlarmJson.toJson(state.firing()).get("mqeMetricsSnapshot"));
      } else {
        s.put("lastAlarmTime", 0);
      }
      return wrap(s);
    });
  }

  private String wrap(ObjectNode status) {
    ObjectNode root = JSON.createObjectNode();
    root.putArray("oapInstances").addObject().put("address", address).set("status", status);
    return root.toString();
  }
}
