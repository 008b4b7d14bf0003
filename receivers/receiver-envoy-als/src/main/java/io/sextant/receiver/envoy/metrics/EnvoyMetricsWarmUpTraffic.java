package io.sextant.receiver.envoy.metrics;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc.MetricsServiceStub;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.prometheus.client.Metrics;
import io.sextant.api.receiver.WarmUpTraffic;
import io.sextant.receiver.common.ClientStreamRound;
import io.sextant.receiver.common.ServiceIdentity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an Istio sidecar streams to the metrics service: snapshots of its server statistics and of
 * every mapped statistic of its inbound cluster and a few outbound ones, its identifier first. Two
 * snapshots per stream, as Envoy sends one every flush interval: the first sets the counters'
 * baselines, the second yields their increase.
 */
final class EnvoyMetricsWarmUpTraffic implements WarmUpTraffic {
  private static final String SERVICE = "warm-up-proxy";
  private static final List<String> CLUSTERS = List.of("inbound|9080||",
      "outbound|9080||reviews.sextant.svc.cluster.local", "outbound|9080||ratings.sextant.svc.cluster.local",
      "outbound|9080||details.sextant.svc.cluster.local", "outbound|15010||istiod.istio-system.svc.cluster.local");

  private final Node node = Node.newBuilder().setId("sidecar~10.0.0.3~" + SERVICE + "-v1-0.sextant~sextant.svc")
      .setMetadata(Struct.newBuilder()
          .putFields("NAME", text(SERVICE + "-v1-0"))
          .putFields("NAMESPACE", text("sextant"))
          .putFields("WORKLOAD_NAME", text(SERVICE + "-v1")))
      .build();
  /** Samples the receiver makes of one snapshot: counted once, with its own mapping. */
  private final int samplesPerSnapshot = EnvoyMetricsReceiver.samples(snapshot(0, false),
      new ServiceIdentity(SERVICE, SERVICE + "-v1-0", Map.of()), new HashMap<>(), () -> {}).size();
  private long total;

  @Override
  public int round(Stubs stubs) throws InterruptedException {
    MetricsServiceStub stub = stubs.stub(MetricsServiceStub.class);
    total += 1000;
    List<StreamMetricsMessage> stream = List.of(snapshot(total, true), snapshot(total + 500, false));
    ClientStreamRound.send(stub::streamMetrics, stream);
    return stream.size() * samplesPerSnapshot;
  }

  private StreamMetricsMessage snapshot(long counted, boolean first) {
    long now = System.currentTimeMillis();
    StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder();
    if (first) {
      m.setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(node));
    }
    for (String stat : EnvoyStatsMapping.SERVER.keySet()) {
      m.addEnvoyMetrics(family(stat, Metrics.MetricType.GAUGE, 1e6, now));
    }
    for (String cluster : CLUSTERS) {
      for (String stat : EnvoyStatsMapping.CLUSTER_GAUGES.keySet()) {
        m.addEnvoyMetrics(family("cluster." + cluster + "." + stat, Metrics.MetricType.GAUGE, 3, now));
      }
      for (String stat : EnvoyStatsMapping.CLUSTER_COUNTERS.keySet()) {
        m.addEnvoyMetrics(family("cluster." + cluster + "." + stat, Metrics.MetricType.COUNTER, counted, now));
      }
    }
    return m.build();
  }

  private static Metrics.MetricFamily family(String name, Metrics.MetricType type, double value, long time) {
    Metrics.Metric.Builder metric = Metrics.Metric.newBuilder().setTimestampMs(time);
    if (type == Metrics.MetricType.COUNTER) {
      metric.setCounter(Metrics.Counter.newBuilder().setValue(value));
    } else {
      metric.setGauge(Metrics.Gauge.newBuilder().setValue(value));
    }
    return Metrics.MetricFamily.newBuilder().setName(name).setType(type).addMetric(metric).build();
  }

  private static Value text(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }
}
