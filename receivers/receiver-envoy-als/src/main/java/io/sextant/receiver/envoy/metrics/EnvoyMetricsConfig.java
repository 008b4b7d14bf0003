package io.sextant.receiver.envoy.metrics;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;
import java.util.Set;

/**
 * Configuration of the Envoy metrics receiver ({@code receiver.envoyMetrics.*}). It names proxies
 * with its own labels key, by default the same labels as the ALS receiver's.
 */
public record EnvoyMetricsConfig(List<String> serviceNameLabels, Set<String> enabledRules) {
  private static final String P = "receiver.envoyMetrics.";
  /** SkyWalking's rule files (envoy-metrics-rules/*.yaml) and Sextant's worker group. */
  static final String INSTANCE_RULES = "envoy";
  static final String RELATION_RULES = "envoy-svc-relation";
  static final String WORKER_RULES = "envoy-worker";
  /** Every listener statistic as sent ({@code envoy_listener_metrics}); off unless asked for. */
  static final String LISTENER_RULES = "envoy-listener";
  private static final List<String> RULES = List.of(INSTANCE_RULES, RELATION_RULES, WORKER_RULES, LISTENER_RULES);
  private static final List<String> DEFAULT_RULES = List.of(INSTANCE_RULES, RELATION_RULES, WORKER_RULES);

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true,
          "serve envoy.service.metrics.v3.MetricsService: proxy statistics become MESH_DP envoy_* metrics"),
      string(P + "serviceNameLabels", String.join(",", ServiceNaming.DEFAULT_LABELS),
          "pod labels naming a proxy's service, first present wins (then the workload name), + '.<namespace>'"),
      new ConfigKey(P + "enabledRules", String.join(",", DEFAULT_RULES), s -> s, v -> unknownRules((String) v),
          "metric groups made from proxy statistics, as SkyWalking's SW_ENVOY_METRIC_ENABLED_RULES: envoy (instance"
              + " and per-cluster envoy_*), envoy-svc-relation (envoy_sr_*), envoy-worker (per-worker connections,"
              + " watchdog misses and listener imbalance, docs/istio.md), envoy-listener (every listener.*"
              + " statistic as sent, SkyWalking's envoy_listener_metrics{metrics_name}; a series per statistic)"));

  private static String unknownRules(String value) {
    for (String rule : value.split(",")) {
      if (!RULES.contains(rule.strip())) {
        return "'" + rule.strip() + "' is not one of " + RULES;
      }
    }
    return null;
  }

  public static EnvoyMetricsConfig load(Settings s) {
    return new EnvoyMetricsConfig(s.list(P + "serviceNameLabels"), Set.copyOf(s.list(P + "enabledRules")));
  }
}
