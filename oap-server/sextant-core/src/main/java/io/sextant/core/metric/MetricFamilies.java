package io.sextant.core.metric;

import java.util.List;

/**
 * The metric families Sextant serves, listed once: the server, the tests and the benchmarks all
 * take their catalog from here. A new family is one entry in {@link #all}.
 */
public final class MetricFamilies {
  private MetricFamilies() {}

  public static List<MetricTable> all(long apdexThresholdMillis) {
    return List.of(new MeshMetricTable(apdexThresholdMillis), new EnvoyMetricTable(), new ProcessMetricTable(),
        new K8sServiceMetricTable(apdexThresholdMillis));
  }

  public static MetricCatalog catalog(long apdexThresholdMillis) {
    return MetricCatalog.of(all(apdexThresholdMillis));
  }
}
