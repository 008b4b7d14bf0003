package io.sextant.core.alarm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sextant.core.alarm.hook.HookCall;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Recoveries and defaults of each hook; the firing payloads are checked end to end in AlarmsIT. */
class HooksTest {
  private static final AlarmMessage FIRED = new AlarmMessage("u-1", 1, "SERVICE", "reviews", "cmV2aWV3cw==.1", "",
      "slow_rule", "reviews is \"slow\"", 1000, 0, Map.of("level", "CRITICAL"), List.of(), null);
  private static final AlarmMessage RECOVERED = FIRED.recoveredAt(5000);

  private static Hooks hooks(String kind, Map<String, Object> settings) {
    return new Hooks(Map.of(kind + ".default", new HookSettings(kind, "default", true, settings)), () -> 42_000L);
  }

  private static JsonNode body(HookCall call) throws Exception {
    return AlarmJson.JSON.readTree(call.body());
  }

  @Test
  void aWebhookSendsRecoveriesToItsRecoveryUrlsOnly() throws Exception {
    Hooks withRecovery = hooks("webhook", Map.of("urls", List.of("http://h/fired"), "recovery-urls",
        List.of("http://h/recovered")));
    assertThat(withRecovery.calls("webhook.default", FIRED)).extracting(c -> c.uri().getPath())
        .containsExactly("/fired");
    List<HookCall> recovery = withRecovery.calls("webhook.default", RECOVERED);
    assertThat(recovery).extracting(c -> c.uri().getPath()).containsExactly("/recovered");
    assertThat(body(recovery.get(0)).get(0).get("recoveryTime").asLong()).isEqualTo(5000);
    assertThat(hooks("webhook", Map.of("urls", List.of("http://h/fired"))).calls("webhook.default", RECOVERED))
        .as("SkyWalking sends no recovery without recovery-urls").isEmpty();
  }

  @Test
  void pagerDutyResolvesTheIncidentItOpened() throws Exception {
    Hooks pagerduty = hooks("pagerduty", Map.of("integration-keys", List.of("k")));
    JsonNode trigger = body(pagerduty.calls("pagerduty.default", FIRED).get(0));
    JsonNode resolve = body(pagerduty.calls("pagerduty.default", RECOVERED).get(0));
    assertThat(pagerduty.calls("pagerduty.default", FIRED).get(0).uri().toString())
        .isEqualTo("https://events.pagerduty.com/v2/enqueue");
    assertThat(trigger.get("event_action").asText()).isEqualTo("trigger");
    assertThat(resolve.get("event_action").asText()).isEqualTo("resolve");
    assertThat(resolve.get("dedup_key").asText()).isEqualTo(trigger.get("dedup_key").asText()).isEqualTo("u-1");
    assertThat(trigger.get("payload").get("severity").asText()).isEqualTo("critical");
    assertThat(resolve.get("payload").get("summary").asText())
        .isEqualTo("Apache SkyWalking Alarm Recovered: \n reviews is \"slow\".");
  }

  @Test
  void withoutTemplatesSkyWalkingsDocumentedOnesAreUsedAndQuotesStayJson() throws Exception {
    Hooks slack = hooks("slack", Map.of("webhooks", List.of("http://h/slack")));
    assertThat(body(slack.calls("slack.default", FIRED).get(0)).get("blocks").get(0).get("text").get("text").asText())
        .isEqualTo(":alarm_clock: *Apache Skywalking Alarm* \n **reviews is \"slow\"**.");
    assertThat(body(slack.calls("slack.default", RECOVERED).get(0)).get("blocks").get(0).get("text").get("text")
        .asText()).isEqualTo(":green_heart: *Apache SkyWalking Alarm Recovered* \n **reviews is \"slow\"**.");
    Hooks wechat = hooks("wechat", Map.of("webhooks", List.of("http://h/wechat")));
    assertThat(body(wechat.calls("wechat.default", FIRED).get(0)).get("text").get("content").asText())
        .isEqualTo("Apache SkyWalking Alarm: \n reviews is \"slow\".");
    Hooks discord = hooks("discord", Map.of("webhooks", List.of(Map.of("url", "http://h/discord"))));
    assertThat(body(discord.calls("discord.default", FIRED).get(0)).get("username").asText()).isEqualTo("robot");
  }

  @Test
  void aTemplateThatIsNotJsonIsRefusedAtLoad() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> hooks("slack", Map.of("text-template",
        "Alarm: %s", "webhooks", List.of("http://h/slack"))))
        .hasMessageStartingWith("hooks.slack.default: text-template must be JSON with one %s for the message");
  }

  @Test
  void rulesWithoutHooksGoToTheDefaultOnes() {
    Hooks two = new Hooks(Map.of("webhook.a", new HookSettings("webhook", "a", true, Map.of()),
        "webhook.b", new HookSettings("webhook", "b", false, Map.of())), () -> 0);
    Map<String, Object> rule = new java.util.LinkedHashMap<>(Map.of("expression", "sum(service_cpm > 1) >= 1"));
    AlarmRule plain = AlarmSettings.rule("plain_rule", rule, io.sextant.core.metric.MetricFamilies.catalog(500),
        java.util.Set.of("webhook.a", "webhook.b"), true, 0);
    rule.put("hooks", List.of("webhook.b"));
    AlarmRule named = AlarmSettings.rule("named_rule", rule, io.sextant.core.metric.MetricFamilies.catalog(500),
        java.util.Set.of("webhook.a", "webhook.b"), true, 0);
    assertThat(two.idsFor(plain)).containsExactly("webhook.a");
    assertThat(two.idsFor(named)).containsExactly("webhook.b");
  }
}
