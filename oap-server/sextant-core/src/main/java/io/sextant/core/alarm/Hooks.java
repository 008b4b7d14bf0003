package io.sextant.core.alarm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.sextant.core.alarm.hook.HookCall;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HTTP calls each configured hook makes for an alarm, in the payloads SkyWalking's hooks send:
 * the webhook posts the JSON list of alarm messages to its {@code urls} (recoveries to its {@code
 * recovery-urls}, as SkyWalking 10.4) with its configured headers; Slack, Discord,
 * PagerDuty (Events API v2), DingTalk, Feishu and WeChat post their {@code text-template} with the
 * message in place of {@code %s} (and {@code recovery-text-template} for a recovery). Rules that name
 * no hook use the default ones ({@code is-default: true}).
 */
public final class Hooks {
  static final String PAGERDUTY_EVENTS = "https://events.pagerduty.com/v2/enqueue";
  private static final String TEXT = "Apache SkyWalking Alarm: \n %s.";
  private static final String RECOVERY_TEXT = "Apache SkyWalking Alarm Recovered: \n %s.";

  private final Map<String, HookSettings> settings;
  private final List<String> defaults;
  private final LongSupplier clock;

  public Hooks(Map<String, HookSettings> settings, LongSupplier clock) {
    this.settings = Map.copyOf(settings);
    this.defaults = settings.values().stream().filter(HookSettings::isDefault).map(HookSettings::id).sorted()
        .toList();
    this.clock = clock;
    settings.values().forEach(Hooks::check);
  }

  /** The hooks an alarm of this rule goes to: its own, or the default ones. */
  public List<String> idsFor(AlarmRule rule) {
    return rule.hooks().isEmpty() ? defaults : rule.hooks();
  }

  /** The calls hook {@code id} makes for one alarm (or its recovery). */
  public List<HookCall> calls(String id, AlarmMessage m) {
    HookSettings h = settings.get(id);
    if (h == null) {
      return List.of(); // removed since the alarm fired
    }
    String text = String.format(template(h, m), m.alarmMessage());
    List<HookCall> calls = new ArrayList<>();
    switch (h.kind()) {
      case "webhook" -> {
        String body = JsonNodeFactory.instance.arrayNode().add(AlarmJson.toJson(m)).toString();
        for (String url : strings(h, m.recovered() ? "recovery-urls" : "urls")) {
          calls.add(new HookCall(URI.create(url), body, headers(h)));
        }
      }
      case "slack" -> {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.putArray("blocks").add(json(templateFilled(h, m)));
        strings(h, "webhooks").forEach(url -> calls.add(new HookCall(URI.create(url), body.toString(), Map.of())));
      }
      case "discord" -> {
        for (Map<String, Object> target : targets(h)) {
          ObjectNode body = JsonNodeFactory.instance.objectNode();
          body.put("username", String.valueOf(target.getOrDefault("username", "robot")));
          body.put("content", text);
          calls.add(new HookCall(URI.create(String.valueOf(target.get("url"))), body.toString(), Map.of()));
        }
      }
      case "pagerduty" -> {
        String url = String.valueOf(h.settings().getOrDefault("url", PAGERDUTY_EVENTS));
        for (String key : strings(h, "integration-keys")) {
          ObjectNode body = JsonNodeFactory.instance.objectNode();
          body.put("routing_key", key);
          body.put("event_action", m.recovered() ? "resolve" : "trigger");
          body.put("dedup_key", m.uuid());
          ObjectNode payload = body.putObject("payload");
          payload.put("summary", text);
          payload.put("severity", severity(m));
          payload.put("source", "Skywalking");
          calls.add(new HookCall(URI.create(url), body.toString(), Map.of()));
        }
      }
      case "dingtalk" -> {
        for (Map<String, Object> target : targets(h)) {
          String url = String.valueOf(target.get("url"));
          Object secret = target.get("secret");
          if (secret != null && !String.valueOf(secret).isEmpty()) {
            long ts = clock.getAsLong();
            url += (url.contains("?") ? "&" : "?") + "timestamp=" + ts + "&sign="
                + URLEncoder.encode(hmac(String.valueOf(secret), ts + "\n" + secret), StandardCharsets.UTF_8);
          }
          calls.add(new HookCall(URI.create(url), templateFilled(h, m), Map.of()));
        }
      }
      case "feishu" -> {
        for (Map<String, Object> target : targets(h)) {
          ObjectNode body = (ObjectNode) json(templateFilled(h, m));
          Object secret = target.get("secret");
          if (secret != null && !String.valueOf(secret).isEmpty()) {
            long ts = clock.getAsLong() / 1000;
            body.put("timestamp", Long.toString(ts));
            body.put("sign", hmac(ts + "\n" + secret, ""));
          }
          calls.add(new HookCall(URI.create(String.valueOf(target.get("url"))), body.toString(), Map.of()));
        }
      }
      case "wechat" -> strings(h, "webhooks")
          .forEach(url -> calls.add(new HookCall(URI.create(url), templateFilled(h, m), Map.of())));
      default -> throw new IllegalStateException("hook type " + h.kind() + " is not built");
    }
    return calls;
  }

  /** PagerDuty's severity from the alarm's {@code level} tag when it names one; SkyWalking's warning otherwise. */
  private static String severity(AlarmMessage m) {
    String level = m.tags().getOrDefault("level", "").toLowerCase(java.util.Locale.ROOT);
    return java.util.Set.of("critical", "error", "warning", "info").contains(level) ? level : "warning";
  }

  /** Refuses at load what cannot be called: unknown targets, hook types not built, templates not JSON. */
  private static void check(HookSettings h) {
    if (java.util.Set.of("slack", "feishu", "dingtalk", "wechat").contains(h.kind())) {
      for (String key : List.of("text-template", "recovery-text-template")) {
        Object template = h.settings().get(key);
        if (template != null) {
          try {
            json(String.format(String.valueOf(template), "message"));
          } catch (IllegalArgumentException e) {
            throw new AlarmSettingsException(List.of("hooks." + h.id() + ": " + key + " must be JSON with one %s"
                + " for the message: " + e.getMessage()));
          }
        }
      }
    }
    switch (h.kind()) {
      case "webhook" -> {
        strings(h, "urls").forEach(URI::create);
        strings(h, "recovery-urls").forEach(URI::create);
      }
      case "slack", "wechat" -> strings(h, "webhooks").forEach(URI::create);
      case "discord", "dingtalk", "feishu" -> targets(h).forEach(t -> URI.create(String.valueOf(t.get("url"))));
      case "pagerduty" -> strings(h, "integration-keys");
      default -> throw new AlarmSettingsException(List.of("hooks." + h.id() + ": " + h.kind()
          + " hooks are not built in Sextant (use webhook, slack, pagerduty, discord, dingtalk, feishu or wechat)"));
    }
  }

  private static String template(HookSettings h, AlarmMessage m) {
    Object t = h.settings().get(m.recovered() ? "recovery-text-template" : "text-template");
    if (t != null) {
      return String.valueOf(t);
    }
    return switch (h.kind()) {
      case "slack" -> m.recovered() ? slackTemplate(":green_heart: *Apache SkyWalking Alarm Recovered* \n **%s**.")
          : slackTemplate(":alarm_clock: *Apache Skywalking Alarm* \n **%s**.");
      case "dingtalk", "wechat" -> "{\"msgtype\":\"text\",\"text\":{\"content\":" + quoted(m.recovered()
          ? RECOVERY_TEXT : TEXT) + "}}";
      case "feishu" -> "{\"msg_type\":\"text\",\"content\":{\"text\":" + quoted(m.recovered() ? RECOVERY_TEXT
          : TEXT) + "}}";
      default -> m.recovered() ? RECOVERY_TEXT : TEXT;
    };
  }

  private static String slackTemplate(String text) {
    return "{\"type\":\"section\",\"text\":{\"type\":\"mrkdwn\",\"text\":" + quoted(text) + "}}";
  }

  /** A JSON template with the message in place of %s, escaped so that any message keeps it JSON. */
  private static String templateFilled(HookSettings h, AlarmMessage m) {
    String escaped = quoted(m.alarmMessage());
    return String.format(template(h, m), escaped.substring(1, escaped.length() - 1));
  }

  private static String quoted(String text) {
    return TextNode.valueOf(text).toString();
  }

  private static JsonNode json(String text) {
    try {
      return AlarmJson.JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("a hook's text-template is not JSON once filled: " + e.getMessage(), e);
    }
  }

  /** DingTalk signs {@code timestamp\nsecret} with the secret; Feishu signs nothing with that as the key. */
  private static String hmac(String key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return Base64.getEncoder().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  private static List<String> strings(HookSettings h, String key) {
    Object v = h.settings().get(key);
    return v instanceof Collection<?> c ? c.stream().map(String::valueOf).toList() : v == null ? List.of()
        : List.of(String.valueOf(v));
  }

  /** A list of targets given as {@code url} strings or as maps with {@code url} (and a secret or a name). */
  private static List<Map<String, Object>> targets(HookSettings h) {
    Object v = h.settings().get("webhooks");
    List<Map<String, Object>> out = new ArrayList<>();
    if (v instanceof Collection<?> c) {
      for (Object t : c) {
        Map<String, Object> target = new LinkedHashMap<>();
        if (t instanceof Map<?, ?> m) {
          m.forEach((k, val) -> target.put(String.valueOf(k), val));
        } else {
          target.put("url", String.valueOf(t));
        }
        out.add(target);
      }
    }
    return out;
  }

  private static Map<String, String> headers(HookSettings h) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (h.settings().get("headers") instanceof Map<?, ?> m) {
      m.forEach((k, v) -> headers.put(String.valueOf(k), String.valueOf(v)));
    }
    return headers;
  }
}
