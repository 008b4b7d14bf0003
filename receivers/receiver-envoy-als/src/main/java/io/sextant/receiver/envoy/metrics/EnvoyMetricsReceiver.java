package io.sextant.receiver.als;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.client.Metrics;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code envoy.service.metrics.v3.MetricsService/StreamMetrics}: each message is a snapshot of a
 * proxy's statistics. The proxy's workload (from its node metadata) is the MESH_DP service and
 * instance; every mapped statistic becomes a sample: gauges as they are, counters as their increase
 * since the stream's previous snapshot. Values of several clusters with the same service name are
 * summed, as SkyWalking's rules do.
 */
public final class EnvoyMetricsReceiver extends MetricsServiceGrpc.MetricsServiceImplBase {
  /** Counter baselines kept per stream; a proxy has a few hundred clusters at most. */
  private static final int MAX_COUNTERS_PER_STREAM = 10_000;

  private final RecordSink sink;
  private final ServiceNaming naming;
  private final Counter snapshots;
  private final Counter samples;
  private final Counter unknownNode;
  private final Counter refused;
  private final Counter tooManyCounters;

  public EnvoyMetricsReceiver(RecordSink sink, List<String> serviceNameLabels, MeterRegistry registry) {
    this.sink = sink;
    this.naming = new ServiceNaming(serviceNameLabels);
    this.snapshots = Counter.builder("sextant_envoy_metrics_snapshots").register(registry);
    this.samples = Counter.builder("sextant_envoy_metrics_samples").register(registry);
    this.unknownNode = Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "unknown_node").register(registry);
    this.refused = Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "refused").register(registry);
    this.tooManyCounters =
        Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "too_many_counters").register(registry);
  }

  @Override
  public StreamObserver<StreamMetricsMessage> streamMetrics(StreamObserver<StreamMetricsResponse> response) {
    return new StreamObserver<>() {
      private Node node;
      private Optional<ServiceIdentity> self = Optional.empty();
      private final Map<String, Double> lastCounters = new HashMap<>();
      private boolean done;

      @Override
      public void onNext(StreamMetricsMessage message) {
        if (done) {
          return;
        }
        snapshots.increment();
        if (message.hasIdentifier() && !message.getIdentifier().getNode().equals(node)) {
          node = message.getIdentifier().getNode();
          self = node.hasMetadata() ? PeerMetadata.fromStruct(node.getMetadata()).flatMap(naming::identify) : Optional.empty();
        }
        if (self.isEmpty()) {
          unknownNode.increment();
          return;
        }
        for (SampleRecord s : samples(message, self.get(), lastCounters, tooManyCounters::increment)) {
          Admission admission = sink.offerSample(s);
          if (admission == Admission.REJECTED_OVERLOADED) {
            refused.increment();
            done = true;
            response.onError(Status.RESOURCE_EXHAUSTED.withDescription("aggregation buffers are full; retry later")
                .asRuntimeException());
            return;
          }
          if (admission == Admission.ACCEPTED) {
            samples.increment();
          } else {
            refused.increment(); // outside the accepted time window
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        done = true;
      }

      @Override
      public void onCompleted() {
        if (!done) {
          done = true;
          response.onNext(StreamMetricsResponse.getDefaultInstance());
          response.onCompleted();
        }
      }
    };
  }

  /** The samples of one snapshot; {@code lastCounters} holds the stream's counter baselines. */
  static List<SampleRecord> samples(StreamMetricsMessage message, ServiceIdentity self, Map<String, Double> lastCounters,
      Runnable onCounterNotTracked) {
    long now = System.currentTimeMillis();
    // (metric, cluster name) → summed value; the relation forms keyed by the destination service.
    Map<String, Map<String, Long>> instanceValues = new LinkedHashMap<>();
    Map<String, Map<String, Long>> relationValues = new LinkedHashMap<>();
    long time = now;
    for (Metrics.MetricFamily family : message.getEnvoyMetricsList()) {
      for (Metrics.Metric m : family.getMetricList()) {
        if (m.getTimestampMs() > 0) {
          time = m.getTimestampMs();
        }
        List<String> server = EnvoyStatsMapping.SERVER.get(family.getName());
        if (server != null) {
          long v = Math.round(value(family, m));
          server.forEach(name -> instanceValues.computeIfAbsent(name, k -> new LinkedHashMap<>()).merge("", v, Long::sum));
          continue;
        }
        EnvoyStatsMapping.ClusterStat stat = EnvoyStatsMapping.parseCluster(family.getName());
        String clusterName = stat == null ? null : EnvoyStatsMapping.clusterName(stat.cluster());
        if (clusterName == null) {
          continue;
        }
        String gauge = EnvoyStatsMapping.CLUSTER_GAUGES.get(stat.stat());
        long v;
        String metric;
        if (gauge != null) {
          metric = gauge;
          v = Math.round(value(family, m));
        } else {
          metric = EnvoyStatsMapping.CLUSTER_COUNTERS.get(stat.stat());
          double total = value(family, m);
          Double last = lastCounters.get(family.getName());
          if (last == null && lastCounters.size() >= MAX_COUNTERS_PER_STREAM) {
            onCounterNotTracked.run();
            continue;
          }
          lastCounters.put(family.getName(), total);
          // The first snapshot only sets the baseline; a counter reset restarts from zero.
          v = last == null ? 0 : Math.round(total >= last ? total - last : total);
        }
        if (!(metric.equals("cluster_membership_healthy") && EnvoyStatsMapping.excludedFromMembership(clusterName))) {
          instanceValues.computeIfAbsent("envoy_" + metric, k -> new LinkedHashMap<>()).merge(clusterName, v, Long::sum);
        }
        if (stat.outbound() && !metric.equals("cluster_membership_healthy")) {
          relationValues.computeIfAbsent("envoy_sr_" + metric, k -> new LinkedHashMap<>()).merge(clusterName, v, Long::sum);
        }
      }
    }
    List<SampleRecord> out = new java.util.ArrayList<>();
    long t = time;
    instanceValues.forEach((metric, byLabel) -> byLabel.forEach((label, v) -> out.add(new SampleRecord(t, "", "",
        self.service(), self.instance(), DetectPoint.SERVER, Layer.MESH_DP, metric, label, v))));
    relationValues.forEach((metric, byDest) -> byDest.forEach((dest, v) -> out.add(new SampleRecord(t, self.service(), "",
        dest, "", DetectPoint.CLIENT, Layer.MESH_DP, metric, "", v))));
    return out;
  }

  private static double value(Metrics.MetricFamily family, Metrics.Metric m) {
    return switch (family.getType()) {
      case COUNTER -> m.getCounter().getValue();
      case GAUGE -> m.getGauge().getValue();
      case UNTYPED -> m.getUntyped().getValue();
      default -> 0;
    };
  }
}
