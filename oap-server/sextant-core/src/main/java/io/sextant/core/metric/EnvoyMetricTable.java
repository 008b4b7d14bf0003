package io.sextant.core.metric;

import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_GAUGES;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_INCREASES;
import static io.sextant.api.metric.EnvoyMetricNames.INSTANCE_GAUGES;
import static io.sextant.api.metric.EnvoyMetricNames.LISTENER_METRICS;
import static io.sextant.api.metric.EnvoyMetricNames.LISTENER_RATIOS;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_GAUGES;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_INCREASES;
import static io.sextant.api.metric.EnvoyMetricNames.hasRelationForm;
import static io.sextant.api.metric.EnvoyMetricNames.perCluster;
import static io.sextant.api.metric.EnvoyMetricNames.perRelation;
import static io.sextant.core.metric.Functions.labelledBy;
import static io.sextant.core.metric.Functions.longAvg;
import static io.sextant.core.metric.Functions.sum;

import io.sextant.api.model.Observation;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The Envoy data-plane metrics of SkyWalking's {@code envoy-metrics-rules} (layer MESH_DP), named in
 * {@link io.sextant.api.metric.EnvoyMetricNames}: instance gauges averaged over the bucket,
 * per-cluster gauges labelled {@code cluster_name}, and counters as their increase ({@code *_incr},
 * summed per bucket from the deltas the receiver computes). {@code envoy_sr_*} are the client-side
 * service-relation forms.
 */
public final class EnvoyMetricTable implements MetricTable {
  private static final ToLongFunction<Observation> VALUE = r -> ((SampleRecord) r).value();

  @Override
  public List<MetricDefinition> definitions() {
    List<MetricDefinition> t = new ArrayList<>();
    for (String name : INSTANCE_GAUGES) {
      t.add(row(name, Scope.SERVICE_INSTANCE, longAvg(VALUE)));
    }
    for (String suffix : CLUSTER_GAUGES) {
      t.add(row(perCluster(suffix), Scope.SERVICE_INSTANCE, labelledBy("cluster_name", longAvg(VALUE))));
      if (hasRelationForm(suffix)) {
        t.add(row(perRelation(suffix), Scope.SERVICE_RELATION, longAvg(VALUE)));
      }
    }
    // Worker threads: how evenly a proxy's connections spread over them (docs/istio.md#worker-threads).
    for (String name : WORKER_GAUGES) {
      t.add(row(name, Scope.SERVICE_INSTANCE, labelledBy("worker", longAvg(VALUE))));
    }
    for (String name : WORKER_INCREASES) {
      t.add(row(name, Scope.SERVICE_INSTANCE, labelledBy("worker", sum(VALUE))));
    }
    for (String name : LISTENER_RATIOS) {
      t.add(row(name, Scope.SERVICE_INSTANCE, labelledBy("listener", longAvg(VALUE))));
    }
    t.add(row(LISTENER_METRICS, Scope.SERVICE_INSTANCE, labelledBy("metrics_name", longAvg(VALUE))));
    for (String suffix : CLUSTER_INCREASES) {
      t.add(row(perCluster(suffix), Scope.SERVICE_INSTANCE, labelledBy("cluster_name", sum(VALUE))));
      t.add(row(perRelation(suffix), Scope.SERVICE_RELATION, sum(VALUE)));
    }
    return t;
  }

  private static MetricDefinition row(String name, Scope scope, AggregateFunction f) {
    return new MetricDefinition(name, Source.SAMPLE, scope, Side.ANY, f);
  }
}
