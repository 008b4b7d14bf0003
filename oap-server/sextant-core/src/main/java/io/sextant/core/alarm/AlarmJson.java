package io.sextant.core.alarm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sextant.core.query.mqe.KeyValue;
import io.sextant.core.query.mqe.MqeValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Alarm messages as JSON exactly as SkyWalking 10.4's webhook posts them ({@code scopeId}, {@code
 * scope}, {@code name}, {@code id0}, {@code id1}, {@code ruleName}, {@code alarmMessage}, {@code
 * tags} as key/value pairs, {@code startTime}, {@code hooks}, {@code expression}, {@code
 * mqeMetricsSnapshot}, {@code uuid}, and {@code recoveryTime} on a recovery); the same encoding is
 * the stored record's body.
 */
public final class AlarmJson {
  static final ObjectMapper JSON = new ObjectMapper();

  private AlarmJson() {}

  public static ObjectNode toJson(AlarmMessage m) {
    ObjectNode o = JSON.createObjectNode();
    o.put("scopeId", m.scopeId());
    o.put("scope", m.scope());
    o.put("name", m.name());
    o.put("id0", m.id0());
    o.put("id1", m.id1());
    o.put("ruleName", m.ruleName());
    o.put("alarmMessage", m.alarmMessage());
    ArrayNode tags = o.putArray("tags");
    m.tags().forEach((k, v) -> tags.addObject().put("key", k).put("value", v));
    o.put("startTime", m.startTime());
    ArrayNode hooks = o.putArray("hooks");
    m.hooks().forEach(hooks::add);
    if (m.snapshot() != null) {
      o.put("expression", m.snapshot().expression());
      o.set("mqeMetricsSnapshot", snapshot(m.snapshot()));
    }
    o.put("uuid", m.uuid());
    if (m.recovered()) {
      o.put("recoveryTime", m.recoveryTime());
    }
    return o;
  }

  /**
   * SkyWalking's {@code mqeMetricsSnapshot}: per metric, a JSON string holding its list of values
   * ({@code {"metric":{"labels":[...]},"values":[{"id":"yyyyMMddHHmm","doubleValue":..,"isEmptyValue":..}]}}).
   */
  public static ObjectNode snapshot(AlarmMessage.Snapshot s) {
    Map<String, ArrayNode> byMetric = new LinkedHashMap<>();
    for (RuleEvaluator.MetricValues mv : s.metrics()) {
      ObjectNode series = byMetric.computeIfAbsent(mv.metric(), k -> JSON.createArrayNode()).addObject();
      ArrayNode labels = series.putObject("metric").putArray("labels");
      mv.labels().forEach(l -> labels.addObject().put("key", l.key()).put("value", l.value()));
      ArrayNode values = series.putArray("values");
      for (MqeValue v : mv.values()) {
        values.addObject().put("id", v.id()).put("doubleValue", v.value() == null ? 0 : v.value())
            .put("isEmptyValue", v.value() == null);
      }
    }
    ObjectNode o = JSON.createObjectNode();
    byMetric.forEach((metric, series) -> o.put(metric, series.toString()));
    return o;
  }

  public static byte[] bytes(AlarmMessage m) {
    try {
      return JSON.writeValueAsBytes(toJson(m));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode alarm " + m.uuid(), e);
    }
  }

  /** Reads back what {@link #bytes} wrote; throws {@link IllegalArgumentException} for anything else. */
  public static AlarmMessage fromBytes(byte[] body) {
    try {
      return fromJson(JSON.readTree(body));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("corrupt alarm record", e);
    }
  }

  static AlarmMessage fromJson(JsonNode o) {
    Map<String, String> tags = new LinkedHashMap<>();
    o.path("tags").forEach(t -> tags.put(t.path("key").asText(), t.path("value").asText()));
    List<String> hooks = new ArrayList<>();
    o.path("hooks").forEach(h -> hooks.add(h.asText()));
    AlarmMessage.Snapshot snapshot = null;
    if (o.hasNonNull("expression")) {
      List<RuleEvaluator.MetricValues> metrics = new ArrayList<>();
      var fields = o.path("mqeMetricsSnapshot").fields();
      while (fields.hasNext()) {
        var metric = fields.next();
        for (JsonNode series : parse(metric.getValue().asText())) {
          List<KeyValue> labels = new ArrayList<>();
          series.path("metric").path("labels")
              .forEach(l -> labels.add(new KeyValue(l.path("key").asText(), l.path("value").asText())));
          List<MqeValue> values = new ArrayList<>();
          series.path("values").forEach(v -> values.add(new MqeValue(v.path("id").asText(),
              v.path("isEmptyValue").asBoolean() ? null : v.path("doubleValue").asDouble())));
          metrics.add(new RuleEvaluator.MetricValues(metric.getKey(), labels, values));
        }
      }
      snapshot = new AlarmMessage.Snapshot(o.path("expression").asText(), metrics);
    }
    return new AlarmMessage(o.path("uuid").asText(), o.path("scopeId").asInt(), o.path("scope").asText(),
        o.path("name").asText(), o.path("id0").asText(), o.path("id1").asText(), o.path("ruleName").asText(),
        o.path("alarmMessage").asText(), o.path("startTime").asLong(), o.path("recoveryTime").asLong(0), tags,
        hooks, snapshot);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("corrupt metrics snapshot", e);
    }
  }

  /** A state document's body. */
  static String stateBody(AlarmState s) {
    ObjectNode o = JSON.createObjectNode();
    o.put("entityId", s.entityId());
    o.put("status", s.status().name());
    o.put("lastMinute", s.lastMinute());
    o.put("silenceLeft", s.silenceLeft());
    o.put("recoveryLeft", s.recoveryLeft());
    if (s.firing() != null) {
      o.set("firing", toJson(s.firing()));
    }
    ArrayNode pending = o.putArray("pending");
    for (AlarmState.Pending p : s.pending()) {
      ObjectNode one = pending.addObject();
      one.set("message", toJson(p.message()));
      ArrayNode hooks = one.putArray("hooks");
      p.hooks().forEach(hooks::add);
      one.put("claimedMillis", p.claimedMillis());
    }
    return o.toString();
  }

  static AlarmState state(String body) {
    try {
      JsonNode o = JSON.readTree(body);
      List<AlarmState.Pending> pending = new ArrayList<>();
      for (JsonNode p : o.path("pending")) {
        List<String> hooks = new ArrayList<>();
        p.path("hooks").forEach(h -> hooks.add(h.asText()));
        pending.add(new AlarmState.Pending(fromJson(p.path("message")), hooks, p.path("claimedMillis").asLong()));
      }
      return new AlarmState(o.path("entityId").asText(), AlarmState.Status.valueOf(o.path("status").asText()),
          o.path("lastMinute").asLong(), o.path("silenceLeft").asInt(), o.path("recoveryLeft").asInt(),
          o.hasNonNull("firing") ? fromJson(o.path("firing")) : null, pending);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("corrupt alarm state", e);
    }
  }
}
