package io.sextant.receiver.envoy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.prometheus.client.Metrics;
import io.sextant.api.model.SampleRecord;
import io.sextant.receiver.common.ServiceIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Worker threads from snapshots shaped as Envoy's metrics service sends them: one family per full
 * dotted name, no labels, counters cumulative, statistics never used left out.
 */
class WorkerStatsTest {
  private static final ServiceIdentity SELF = new ServiceIdentity("reviews.default", "reviews-v1-0", Map.of());
  private static final Set<String> ALL_RULES = Set.of("envoy", "envoy-svc-relation", "envoy-worker");
  private static final String INBOUND = "listener.0.0.0.0_15006.";
  private final CounterBaselines baselines = new CounterBaselines();
  private long time = 1_700_000_000_000L;

  @Test
  void aBalancedProxyIsAtOneHundred() {
    Map<String, Long> s = snapshot(ALL_RULES, gauge("server.concurrency", 4),
        gauge(INBOUND + "worker_0.downstream_cx_active", 5), gauge(INBOUND + "worker_1.downstream_cx_active", 5),
        gauge(INBOUND + "worker_2.downstream_cx_active", 5), gauge(INBOUND + "worker_3.downstream_cx_active", 5),
        gauge("listener.admin.main_thread.downstream_cx_active", 1));

    assertThat(s).containsEntry("envoy_listener_cx_active_imbalance|0.0.0.0_15006", 100L)
        .containsEntry("envoy_worker_cx_active|0", 5L).containsEntry("envoy_worker_cx_active|3", 5L)
        .containsEntry("envoy_worker_threads|", 4L).doesNotContainKey("envoy_listener_cx_active_imbalance|admin");
  }

  @Test
  void connectionsPinnedToOneWorkerOfFourAreAtFourHundredAndTheIdleWorkersAtZero() {
    // Envoy leaves out the statistics of workers that never took a connection.
    Map<String, Long> s = snapshot(ALL_RULES, gauge("server.concurrency", 4),
        gauge(INBOUND + "worker_2.downstream_cx_active", 8));

    assertThat(s).containsEntry("envoy_listener_cx_active_imbalance|0.0.0.0_15006", 400L)
        .containsEntry("envoy_worker_cx_active|0", 0L).containsEntry("envoy_worker_cx_active|1", 0L)
        .containsEntry("envoy_worker_cx_active|2", 8L).containsEntry("envoy_worker_cx_active|3", 0L);
  }

  @Test
  void fewerConnectionsThanWorkersAreEvenWhenNoWorkerHasTwo() {
    assertThat(snapshot(ALL_RULES, gauge("server.concurrency", 3), gauge(INBOUND + "worker_0.downstream_cx_active", 1),
        gauge(INBOUND + "worker_2.downstream_cx_active", 1)))
        .containsEntry("envoy_listener_cx_active_imbalance|0.0.0.0_15006", 100L);
    assertThat(snapshot(ALL_RULES, gauge("server.concurrency", 3), gauge(INBOUND + "worker_1.downstream_cx_active", 2)))
        .containsEntry("envoy_listener_cx_active_imbalance|0.0.0.0_15006", 200L);
  }

  @Test
  void acceptsAreIncreasesPerWorkerLeavingOutTheOutboundHandOff() {
    String outbound = "listener.0.0.0.0_15001.";
    String port = "listener.10.96.0.7_9080.";
    snapshot(ALL_RULES, gauge("server.concurrency", 2), counter(port + "worker_0.downstream_cx_total", 100),
        counter(port + "worker_1.downstream_cx_total", 100), counter(outbound + "worker_0.downstream_cx_total", 400));

    Map<String, Long> s = snapshot(ALL_RULES, gauge("server.concurrency", 2),
        counter(port + "worker_0.downstream_cx_total", 130), counter(port + "worker_1.downstream_cx_total", 110),
        counter(outbound + "worker_0.downstream_cx_total", 440));

    assertThat(s).containsEntry("envoy_worker_cx_incr|0", 30L).containsEntry("envoy_worker_cx_incr|1", 10L)
        // 30 of 40 on one of two workers: 100 × 30 / 20.
        .containsEntry("envoy_listener_cx_incr_imbalance|10.96.0.7_9080", 150L)
        .containsEntry("envoy_listener_cx_incr_imbalance|0.0.0.0_15001", 200L);
  }

  @Test
  void aWorkersFirstWatchdogMissCountsInFull() {
    snapshot(ALL_RULES, gauge("server.concurrency", 2), counter("server.worker_0.watchdog_miss", 1));

    Map<String, Long> second = snapshot(ALL_RULES, counter("server.worker_0.watchdog_miss", 1),
        counter("server.worker_1.watchdog_miss", 3), counter("server.main_thread.watchdog_mega_miss", 1));
    Map<String, Long> third = snapshot(ALL_RULES, counter("server.worker_0.watchdog_miss", 1),
        counter("server.worker_1.watchdog_miss", 5), counter("server.main_thread.watchdog_mega_miss", 1));

    assertThat(second).containsEntry("envoy_worker_watchdog_miss_incr|0", 0L)
        .containsEntry("envoy_worker_watchdog_miss_incr|1", 3L)
        .containsEntry("envoy_worker_watchdog_mega_miss_incr|main_thread", 1L);
    assertThat(third).containsEntry("envoy_worker_watchdog_miss_incr|1", 2L)
        .containsEntry("envoy_worker_watchdog_mega_miss_incr|main_thread", 0L);
  }

  @Test
  void ipv6ListenersParseAndTheWorkerGroupCanBeTurnedOff() {
    Map<String, Long> s = snapshot(ALL_RULES, gauge("listener.[__]_15006.worker_1.downstream_cx_active", 2));
    // No concurrency sent: the workers the statistics name, 0 and 1; both connections on worker 1.
    assertThat(s).containsEntry("envoy_listener_cx_active_imbalance|[__]_15006", 200L);

    Map<String, Long> off = snapshot(Set.of("envoy"), gauge("server.concurrency", 2),
        gauge(INBOUND + "worker_1.downstream_cx_active", 2));
    assertThat(off.keySet()).containsExactlyInAnyOrder("envoy_worker_threads|", "envoy_worker_threads_max|");
    Map<String, Long> onlyWorkers = snapshot(Set.of("envoy-worker"), gauge("server.concurrency", 2),
        gauge(INBOUND + "worker_1.downstream_cx_active", 2));
    assertThat(onlyWorkers).containsKey("envoy_worker_cx_active|1").doesNotContainKey("envoy_worker_threads|");
  }

  @Test
  void everyListenerStatisticAsSentWhenItsGroupIsOn() {
    Set<String> rules = Set.of("envoy", "envoy-listener");
    Map<String, Long> s = snapshot(rules, gauge(INBOUND + "worker_0.downstream_cx_active", 3),
        counter(INBOUND + "downstream_cx_total", 120), gauge("listener.admin.main_thread.downstream_cx_active", 1));
    assertThat(s).containsEntry("envoy_listener_metrics|" + INBOUND + "worker_0.downstream_cx_active", 3L)
        .containsEntry("envoy_listener_metrics|" + INBOUND + "downstream_cx_total", 120L)
        .containsEntry("envoy_listener_metrics|listener.admin.main_thread.downstream_cx_active", 1L)
        .doesNotContainKey("envoy_worker_cx_active|0");
    assertThat(snapshot(ALL_RULES, gauge(INBOUND + "worker_0.downstream_cx_active", 3)).keySet())
        .noneMatch(k -> k.startsWith("envoy_listener_metrics|"));
  }

  /** One snapshot's samples as metric|label → value. */
  private Map<String, Long> snapshot(Set<String> rules, Metrics.MetricFamily... families) {
    time += 10_000;
    List<Metrics.MetricFamily> list = new ArrayList<>(List.of(families));
    List<SampleRecord> samples = EnvoyMetricsReceiver.samples(
        StreamMetricsMessage.newBuilder().addAllEnvoyMetrics(list).build(), SELF, rules, baselines, () -> {
          throw new AssertionError("counter not tracked");
        });
    Map<String, Long> out = new TreeMap<>();
    samples.forEach(r -> out.put(r.metric() + "|" + r.label(), r.value()));
    return out;
  }

  private Metrics.MetricFamily gauge(String name, double v) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.GAUGE)
        .addMetric(Metrics.Metric.newBuilder().setGauge(Metrics.Gauge.newBuilder().setValue(v)).setTimestampMs(time))
        .build();
  }

  private Metrics.MetricFamily counter(String name, double v) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.COUNTER)
        .addMetric(Metrics.Metric.newBuilder().setCounter(Metrics.Counter.newBuilder().setValue(v))
            .setTimestampMs(time)).build();
  }
}
