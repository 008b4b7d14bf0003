package io.sextant.receiver.envoy.metrics;

import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_MEMBERSHIP_HEALTHY;

import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsResponse;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.client.Metrics;
import io.sextant.api.metric.EnvoyMetricNames;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordSink;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.RecordStream;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.PeerMetadata;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code envoy.service.metrics.v3.MetricsService/StreamMetrics}: each message is a snapshot of a
 * proxy's statistics. The proxy's workload (from its node metadata) is the MESH_DP service and
 * instance; every mapped statistic becomes a sample: gauges as they are, counters as their increase
 * since the stream's previous snapshot. Values of several clusters with the same service name are
 * summed, as SkyWalking's rules do.
 *
 * <p>Like Envoy's access logs, a stream ends OK whatever was dropped (Envoy never reads the
 * response), unless the aggregator is full.
 */
public final class EnvoyMetricsReceiver implements Receiver {
  static final String NAME = "envoyMetrics";
  private static final String CONCURRENCY = "server.concurrency";
  private static final String LISTENER_PREFIX = "listener.";

  private final RecordSink sink;
  private final ServiceNaming naming;
  private final Set<String> enabledRules;
  private final ReceiverMetrics common;
  private final Counter snapshots;
  private final Counter samples;
  private final Counter unknownNode;
  private final Counter refused;
  private final Counter tooManyCounters;

  public EnvoyMetricsReceiver(RecordSink sink, EnvoyMetricsConfig config, MeterRegistry registry) {
    this.sink = sink;
    this.naming = new ServiceNaming(config.serviceNameLabels());
    this.enabledRules = config.enabledRules();
    this.common = ReceiverMetrics.forReceiver(NAME, registry);
    this.snapshots = Counter.builder("sextant_envoy_metrics_snapshots").register(registry);
    this.samples = Counter.builder("sextant_envoy_metrics_samples").register(registry);
    this.unknownNode =
        Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "unknown_node").register(registry);
    this.refused = Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "refused").register(registry);
    this.tooManyCounters =
        Counter.builder("sextant_envoy_metrics_dropped").tag("reason", "too_many_counters").register(registry);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    return List.of(new MetricsServiceGrpc.MetricsServiceImplBase() {
      @Override
      public StreamObserver<StreamMetricsMessage> streamMetrics(StreamObserver<StreamMetricsResponse> response) {
        return new Stream(response);
      }
    }.bindService());
  }

  /** One proxy's stream, with its counter baselines. */
  private final class Stream extends RecordStream<StreamMetricsMessage, StreamMetricsResponse> {
    private Node node;
    private Optional<ServiceIdentity> self = Optional.empty();
    private final CounterBaselines baselines = new CounterBaselines();

    Stream(StreamObserver<StreamMetricsResponse> response) {
      super(sink, common, Completion.ALWAYS_OK, response, StreamMetricsResponse.getDefaultInstance());
    }

    @Override
    protected void handle(StreamMetricsMessage message) {
      snapshots.increment();
      if (message.hasIdentifier() && !message.getIdentifier().getNode().equals(node)) {
        node = message.getIdentifier().getNode();
        self = node.hasMetadata() ? PeerMetadata.fromStruct(node.getMetadata()).flatMap(naming::identify)
            : Optional.empty();
      }
      if (self.isEmpty()) {
        unknownNode.increment();
        reject("unknown_node", "the proxy's node carries no usable workload metadata", 1);
        return;
      }
      for (SampleRecord s : samples(message, self.get(), enabledRules, baselines, this::counterNotTracked)) {
        if (!offer(s)) {
          return;
        }
      }
    }

    private void counterNotTracked() {
      tooManyCounters.increment();
      reject("too_many_counters", "more than " + CounterBaselines.MAX_COUNTERS + " counters on one stream", 1);
    }

    @Override
    protected void admitted(Admission admission) {
      if (admission == Admission.ACCEPTED) {
        samples.increment();
      } else {
        refused.increment(); // outside the accepted time window, or the aggregator is full
      }
    }
  }

  /** The samples of one snapshot; {@code baselines} holds the stream's counter totals. */
  static List<SampleRecord> samples(StreamMetricsMessage message, ServiceIdentity self, Set<String> enabledRules,
      CounterBaselines baselines, Runnable onCounterNotTracked) {
    long now = System.currentTimeMillis();
    // (metric, cluster name) → summed value; the relation forms keyed by the destination service.
    Map<String, Map<String, Long>> instanceValues = new LinkedHashMap<>();
    Map<String, Map<String, Long>> relationValues = new LinkedHashMap<>();
    long time = now;
    WorkerStats workers = new WorkerStats();
    long concurrency = 0;
    for (Metrics.MetricFamily family : message.getEnvoyMetricsList()) {
      for (Metrics.Metric m : family.getMetricList()) {
        if (m.getTimestampMs() > 0) {
          time = m.getTimestampMs();
        }
        double value = value(family, m);
        if (family.getName().equals(CONCURRENCY)) {
          concurrency = Math.round(value);
        }
        if (family.getName().startsWith(LISTENER_PREFIX)) {
          // As sent (a counter's total too), as SkyWalking's envoy_listener_metrics input.
          add(instanceValues, EnvoyMetricNames.LISTENER_METRICS, family.getName(), Math.round(value));
        }
        if (workers.take(family.getName(), value, baselines, onCounterNotTracked)) {
          continue;
        }
        List<String> server = EnvoyStatsMapping.SERVER.get(family.getName());
        if (server != null) {
          long v = Math.round(value);
          server.forEach(name -> add(instanceValues, name, "", v));
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
          v = Math.round(value);
        } else {
          metric = EnvoyStatsMapping.CLUSTER_COUNTERS.get(stat.stat());
          v = baselines.increase(family.getName(), value);
          if (v < 0) {
            onCounterNotTracked.run();
            continue;
          }
        }
        if (!(metric.equals(CLUSTER_MEMBERSHIP_HEALTHY) && EnvoyStatsMapping.excludedFromMembership(clusterName))) {
          add(instanceValues, EnvoyMetricNames.perCluster(metric), clusterName, v);
        }
        if (stat.outbound() && EnvoyMetricNames.hasRelationForm(metric)) {
          add(relationValues, EnvoyMetricNames.perRelation(metric), clusterName, v);
        }
      }
    }
    if (enabledRules.contains(EnvoyMetricsConfig.WORKER_RULES)) {
      workers.emit(concurrency, (metric, label, v) -> add(instanceValues, metric, label, v));
    }
    baselines.snapshotDone();
    instanceValues.keySet().removeIf(metric -> !groupOn(metric, enabledRules));
    if (!enabledRules.contains(EnvoyMetricsConfig.RELATION_RULES)) {
      relationValues.clear();
    }
    List<SampleRecord> out = new ArrayList<>();
    long t = time;
    instanceValues.forEach((metric, byLabel) -> byLabel.forEach((label, v) -> out.add(new SampleRecord(t, "", "",
        self.service(), self.instance(), DetectPoint.SERVER, Layer.MESH_DP, metric, label, v))));
    // An outbound cluster is an edge only when this snapshot saw traffic to it, and never to the
    // proxy's own service: Envoy keeps a cluster for every service of the mesh, called or not.
    Set<String> called = new HashSet<>();
    relationValues.values().forEach(byDest -> byDest.forEach((dest, v) -> {
      if (v != 0 && !dest.equals(self.service())) {
        called.add(dest);
      }
    }));
    relationValues.forEach((metric, byDest) -> byDest.forEach((dest, v) -> {
      if (called.contains(dest)) {
        out.add(new SampleRecord(t, self.service(), "", dest, "", DetectPoint.CLIENT, Layer.MESH_DP, metric, "", v));
      }
    }));
    return out;
  }

  /** Whether the rule group that makes {@code metric} is on (the worker group's are made only when it is). */
  private static boolean groupOn(String metric, Set<String> enabledRules) {
    if (WorkerStats.METRICS.contains(metric)) {
      return true;
    }
    return enabledRules.contains(metric.equals(EnvoyMetricNames.LISTENER_METRICS)
        ? EnvoyMetricsConfig.LISTENER_RULES : EnvoyMetricsConfig.INSTANCE_RULES);
  }

  private static void add(Map<String, Map<String, Long>> values, String metric, String label, long v) {
    values.computeIfAbsent(metric, k -> new LinkedHashMap<>()).merge(label, v, Long::sum);
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
