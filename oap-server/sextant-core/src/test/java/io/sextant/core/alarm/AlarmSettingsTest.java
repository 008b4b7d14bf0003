package io.sextant.core.alarm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.model.Scope;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlarmSettingsTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(500);

  private static Map<String, Object> rule(Object... keyValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put((String) keyValues[i], keyValues[i + 1]);
    }
    return m;
  }

  @Test
  void skyWalkingsExampleRulesLoadWithTheirDefaults() {
    Map<String, Object> rules = new LinkedHashMap<>();
    rules.put("service_resp_time_rule", rule("expression", "sum(service_resp_time > 1000) >= 3", "period", 10,
        "silence-period", 5, "message", "Response time of service {name} is more than 1000ms in 3 minutes of last"
            + " 10 minutes."));
    rules.put("service_sla_rule", rule("expression", "sum(service_sla < 8000) >= 2", "period", 10,
        "silence-period", 3, "tags", Map.of("level", "WARNING")));
    rules.put("service_resp_time_percentile_rule", rule("expression",
        "sum(service_percentile{p='50,75,90,95,99'} > 1000) >= 3", "period", 10, "silence-period", 5));
    rules.put("service_instance_resp_time_rule", rule("expression", "sum(service_instance_resp_time > 1000) >= 2",
        "period", 10, "include-names", List.of("reviews-v1 of reviews")));
    rules.put("service_relation_sla_rule", rule("expression", "avg(service_relation_server_call_sla) < 9000",
        "exclude-names-regex", ".*-canary to .*"));
    Map<String, Object> hooks = Map.of("webhook", Map.of("default", Map.of("is-default", true, "urls",
        List.of("http://127.0.0.1/notify/"))));

    AlarmSettings s = AlarmSettings.parse(Map.of("rules", rules, "hooks", hooks), catalog);

    assertThat(s.rules()).extracting(AlarmRule::name).containsExactly("service_resp_time_rule",
        "service_sla_rule", "service_resp_time_percentile_rule", "service_instance_resp_time_rule",
        "service_relation_sla_rule");
    AlarmRule sla = s.rules().get(1);
    assertThat(sla.scope()).isEqualTo(Scope.SERVICE);
    assertThat(sla.period()).isEqualTo(10);
    assertThat(sla.silencePeriod()).isEqualTo(3);
    assertThat(sla.recoveryObservationPeriod()).isZero();
    assertThat(sla.message()).isEqualTo("Alarm caused by Rule service_sla_rule");
    assertThat(sla.tags()).containsEntry("level", "WARNING");
    AlarmRule relation = s.rules().get(4);
    assertThat(relation.scope()).isEqualTo(Scope.SERVICE_RELATION);
    assertThat(relation.period()).as("SkyWalking's default period").isEqualTo(1);
    assertThat(relation.silencePeriod()).as("silence defaults to the period").isEqualTo(1);
    assertThat(relation.watches("reviews to ratings")).isTrue();
    assertThat(relation.watches("reviews-canary to ratings")).isFalse();
    assertThat(s.rules().get(3).watches("reviews-v2 of reviews")).isFalse();
    assertThat(s.hooks()).containsOnlyKeys("webhook.default");
    assertThat(s.hooks().get("webhook.default").isDefault()).isTrue();
  }

  @Test
  void everyProblemIsListedNamingItsRule() {
    Map<String, Object> rules = new LinkedHashMap<>();
    rules.put("unknown_metric_rule", rule("expression", "sum(service_latency > 1) >= 1"));
    rules.put("series_rule", rule("expression", "service_resp_time > 1000"));
    rules.put("no_compare_rule", rule("expression", "sum(service_resp_time)"));
    rules.put("mixed_rule", rule("expression", "sum(service_cpm > 1) + sum(endpoint_cpm > 1) >= 1"));
    rules.put("regex_rule", rule("expression", "sum(service_cpm > 1) >= 1", "include-names-regex", "(unclosed"));
    rules.put("old_form_rule", rule("metrics-name", "service_resp_time", "op", ">", "threshold", 1000));
    rules.put("bad_name", rule("expression", "sum(service_cpm > 1) >= 1", "hooks", List.of("slack.none")));
    rules.put("period_rule", rule("expression", "sum(service_cpm > 1) >= 1", "period", "ten"));

    assertThatThrownBy(() -> AlarmSettings.parse(Map.of("rules", rules), catalog))
        .isInstanceOfSatisfying(AlarmSettingsException.class, e -> assertThat(e.problems()).containsExactly(
            "rule 'unknown_metric_rule': unknown metric 'service_latency'",
            "rule 'series_rule': the expression must answer a single value per entity (wrap the metric in"
                + " sum/avg/max/min/latest/count over the period), but it answers TIME_SERIES_VALUES",
            "rule 'no_compare_rule': the expression must compare at its root (e.g. sum(service_sla < 8000) >= 2),"
                + " so that it answers 1 (fire) or 0",
            "rule 'mixed_rule': metrics of different scopes (SERVICE and ENDPOINT 'endpoint_cpm'): one rule"
                + " watches one kind of entity",
            "rule 'regex_rule': include-names-regex is not a regular expression: Unclosed group",
            "rule 'old_form_rule': unknown key 'metrics-name' (SkyWalking 9's form: write it as an MQE expression)",
            "rule 'old_form_rule': unknown key 'op' (SkyWalking 9's form: write it as an MQE expression)",
            "rule 'old_form_rule': unknown key 'threshold' (SkyWalking 9's form: write it as an MQE expression)",
            "rule 'old_form_rule': expression is required",
            "rule 'bad_name': a rule's name must end with '_rule', as SkyWalking requires",
            "rule 'bad_name': hook 'slack.none' is not defined under hooks (defined: [])",
            "rule 'period_rule': period must be a whole number of minutes, not 'ten'"));
  }

  @Test
  void aMultiwindowRuleHasWindowsInsteadOfAnExpression() {
    Map<String, Object> both = rule("expression", "sum(service_cpm > 1) >= 1", "windows", List.of(
        Map.of("expression", "sum(service_cpm > 1) >= 1", "period", 60)));
    assertThatThrownBy(() -> AlarmSettings.rule("w_rule", both, catalog, java.util.Set.of(), true, 0))
        .hasMessageContaining("a rule with windows has no expression or period of its own")
        .hasMessageContaining("windows needs two or more windows");
    Map<String, Object> mixed = rule("windows", List.of(Map.of("expression", "sum(service_cpm > 1) >= 1", "period",
        60), Map.of("expression", "avg(endpoint_cpm) > 1", "period", 5)));
    assertThatThrownBy(() -> AlarmSettings.rule("w_rule", mixed, catalog, java.util.Set.of(), true, 0))
        .hasMessage("rule 'w_rule': window 2: reads ENDPOINT metrics, the first window SERVICE ones");
  }

  @Test
  void aMessageMayNameOnlyTheEntity() {
    assertThatThrownBy(() -> AlarmSettings.rule("slow_rule", rule("expression", "sum(service_cpm > 1) >= 1",
        "message", "{name} ({id}) of {service} is slow"), catalog, java.util.Set.of(), true, 0))
        .hasMessage("rule 'slow_rule': message placeholder {service} is unknown (only {name} and {id})");
  }

  @Test
  void hooksOfUnknownTypesAndHooksNotBuiltAreRefused() {
    assertThatThrownBy(() -> AlarmSettings.parse(Map.of("hooks", Map.of("pager", Map.of())), catalog))
        .hasMessageContaining("hooks: unknown hook type 'pager'");
    AlarmSettings grpc = AlarmSettings.parse(Map.of("hooks", Map.of("grpc", Map.of("default",
        Map.of("target-host", "127.0.0.1", "target-port", 9888)))), catalog);
    assertThatThrownBy(() -> new AlarmRules(() -> null, catalog).useFile(grpc))
        .hasMessageContaining("hooks.grpc.default: grpc hooks are not built in Sextant");
  }
}
