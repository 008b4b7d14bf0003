package io.sextant.receiver.envoy.metrics;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;

/**
 * Configuration of the Envoy metrics receiver ({@code receiver.envoyMetrics.*}). It names proxies
 * with its own labels key, by default the same labels as the ALS receiver's.
 */
public record EnvoyMetricsConfig(List<String> serviceNameLabels) {
  private static final String P = "receiver.envoyMetrics.";

  public static final List<ConfigKey> KEYS = List.of(
      bool(P + "enabled", true,
          "serve envoy.service.metrics.v3.MetricsService: proxy statistics become MESH_DP envoy_* metrics"),
      string(P + "serviceNameLabels", String.join(",", ServiceNaming.DEFAULT_LABELS),
          "pod labels naming a proxy's service, first present wins (then the workload name), + '.<namespace>'"));

  public static EnvoyMetricsConfig load(Settings s) {
    return new EnvoyMetricsConfig(s.list(P + "serviceNameLabels"));
  }
}
