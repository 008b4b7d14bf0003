package io.sextant.core.metric;

import io.sextant.api.model.Scope;
import static io.sextant.core.metric.Functions.labelledBy;
import static io.sextant.core.metric.Functions.longAvg;
import static io.sextant.core.metric.Functions.sum;

import io.sextant.api.model.MeshRecord;
import io.sextant.api.model.SampleRecord;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The Envoy data-plane metrics of SkyWalking's {@code envoy-metrics-rules} (layer MESH_DP): instance
 * gauges averaged over the bucket, per-cluster gauges labelled {@code cluster_name}, and counters
 * as their increase ({@code *_incr}, summed per bucket from the deltas the receiver computes).
 * {@code envoy_sr_*} are the client-side service-relation forms.
 */
public final class EnvoyMetricTable {
  /** Instance gauges, averaged over the bucket. */
  public static final List<String> INSTANCE_GAUGES = List.of(
      "envoy_heap_memory_used", "envoy_heap_memory_max_used", "envoy_memory_allocated",
      "envoy_memory_allocated_max", "envoy_memory_physical_size", "envoy_memory_physical_size_max",
      "envoy_total_connections_used", "envoy_parent_connections_used", "envoy_worker_threads",
      "envoy_worker_threads_max", "envoy_bug_failures");
  /** Per-cluster gauges (label cluster_name) on the instance, and their relation forms. */
  public static final List<String> CLUSTER_GAUGES = List.of(
      "cluster_membership_healthy", "cluster_up_cx_active", "cluster_up_rq_active", "cluster_up_rq_pending_active");
  /** Per-cluster counter increases. */
  public static final List<String> CLUSTER_INCREASES = List.of(
      "cluster_up_cx_incr", "cluster_up_rq_incr", "cluster_lb_healthy_panic_incr", "cluster_up_cx_none_healthy_incr");

  private static final ToLongFunction<MeshRecord> VALUE = r -> ((SampleRecord) r).value();

  private EnvoyMetricTable() {}

  static List<MetricDefinition> definitions() {
    List<MetricDefinition> t = new java.util.ArrayList<>();
    for (String name : INSTANCE_GAUGES) {
      t.add(row(name, Scope.SERVICE_INSTANCE, longAvg(VALUE)));
    }
    for (String name : CLUSTER_GAUGES) {
      t.add(row("envoy_" + name, Scope.SERVICE_INSTANCE, labelledBy("cluster_name", longAvg(VALUE))));
      if (!name.equals("cluster_membership_healthy")) {
        t.add(row("envoy_sr_" + name, Scope.SERVICE_RELATION, longAvg(VALUE)));
      }
    }
    for (String name : CLUSTER_INCREASES) {
      t.add(row("envoy_" + name, Scope.SERVICE_INSTANCE, labelledBy("cluster_name", sum(VALUE))));
      t.add(row("envoy_sr_" + name, Scope.SERVICE_RELATION, sum(VALUE)));
    }
    return t;
  }

  private static MetricDefinition row(String name, Scope scope, AggregateFunction f) {
    return new MetricDefinition(name, Source.SAMPLE, scope, Side.ANY, r -> ((SampleRecord) r).metric().equals(name), f);
  }
}
