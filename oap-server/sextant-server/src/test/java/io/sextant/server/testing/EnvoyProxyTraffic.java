package io.sextant.server.testing;

import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.prometheus.client.Metrics;
import java.util.ArrayList;
import java.util.List;

/**
 * Three stat snapshots of one Istio sidecar (productpage's, namespace default), 10 s apart as Envoy
 * flushes them, touching every statistic the MESH_DP metrics are made of, with known results per
 * minute: heap 100, 200, 300 MB (average 200,000,000 bytes); total connections 10, 20, 30 (20);
 * reviews' active requests (v1 + v2 subsets) 4, 5, 6 (5); request counters grow by 100 to reviews and
 * 14 to details. Its two workers hold 6 and 2 of the inbound listener's connections (imbalance 150)
 * and accept 10 and 5 between snapshots (125); worker 1's watchdog first misses in the second
 * snapshot (1), then again (2 in the minute); the main thread stalls over a second once.
 */
public final class EnvoyProxyTraffic {
  public static final Istio.Pod PRODUCTPAGE =
      new Istio.Pod("productpage-v1-6b746f74dc-9stvs", "default", "productpage", "10.0.1.1");
  private static final String REVIEWS_V1 = "cluster.outbound|9080|v1|reviews.default.svc.cluster.local.";
  private static final String REVIEWS_V2 = "cluster.outbound|9080|v2|reviews.default.svc.cluster.local.";
  private static final String INBOUND = "listener.0.0.0.0_15006.";
  private static final String DETAILS = "cluster.outbound|9080||details.default.svc.cluster.local.";

  private EnvoyProxyTraffic() {}

  public static List<StreamMetricsMessage> snapshots(long time) {
    List<StreamMetricsMessage> messages = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      long t = time + i * 10_000L;
      StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder();
      if (i == 0) {
        m.setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(PRODUCTPAGE.sidecar()));
      }
      m.addEnvoyMetrics(gauge("server.memory_heap_size", (i + 1) * 100_000_000.0, t))
          .addEnvoyMetrics(gauge("server.memory_allocated", 50_000_000, t))
          .addEnvoyMetrics(gauge("server.memory_physical_size", 400_000_000, t))
          .addEnvoyMetrics(gauge("server.total_connections", 10 * (i + 1), t))
          .addEnvoyMetrics(gauge("server.parent_connections", 4, t))
          .addEnvoyMetrics(gauge("server.concurrency", 2, t))
          .addEnvoyMetrics(gauge(INBOUND + "worker_0.downstream_cx_active", 6, t))
          .addEnvoyMetrics(gauge(INBOUND + "worker_1.downstream_cx_active", 2, t))
          .addEnvoyMetrics(counter(INBOUND + "worker_0.downstream_cx_total", 100 + 10 * i, t))
          .addEnvoyMetrics(counter(INBOUND + "worker_1.downstream_cx_total", 50 + 5 * i, t))
          .addEnvoyMetrics(gauge("server.envoy_bug_failures", 1, t))
          .addEnvoyMetrics(gauge(REVIEWS_V1 + "membership_healthy", 2, t))
          .addEnvoyMetrics(gauge(DETAILS + "membership_healthy", 1, t))
          .addEnvoyMetrics(gauge(REVIEWS_V1 + "upstream_cx_active", 2, t))
          .addEnvoyMetrics(gauge(REVIEWS_V1 + "upstream_rq_active", 3 + i, t))
          .addEnvoyMetrics(gauge(REVIEWS_V2 + "upstream_rq_active", 1, t))
          .addEnvoyMetrics(gauge(REVIEWS_V1 + "upstream_rq_pending_active", 1, t))
          .addEnvoyMetrics(counter(REVIEWS_V1 + "upstream_rq_total", 1000 + 50 * i, t))
          .addEnvoyMetrics(counter(DETAILS + "upstream_rq_total", 10 + 7 * i, t))
          .addEnvoyMetrics(counter(REVIEWS_V1 + "upstream_cx_total", 5 + i, t))
          .addEnvoyMetrics(counter(REVIEWS_V1 + "lb_healthy_panic", i == 2 ? 1 : 0, t))
          .addEnvoyMetrics(counter(DETAILS + "upstream_cx_none_healthy", i == 0 ? 0 : 2 * i - 1, t));
      if (i > 0) {
        m.addEnvoyMetrics(counter("server.worker_1.watchdog_miss", i, t));
      }
      if (i == 2) {
        m.addEnvoyMetrics(counter("server.main_thread.watchdog_mega_miss", 1, t));
      }
      messages.add(m.build());
    }
    return messages;
  }

  public static Metrics.MetricFamily gauge(String name, double v, long t) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.GAUGE)
        .addMetric(Metrics.Metric.newBuilder().setGauge(Metrics.Gauge.newBuilder().setValue(v)).setTimestampMs(t))
        .build();
  }

  public static Metrics.MetricFamily counter(String name, double v, long t) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.COUNTER)
        .addMetric(Metrics.Metric.newBuilder().setCounter(Metrics.Counter.newBuilder().setValue(v))
            .setTimestampMs(t)).build();
  }
}
