package io.sextant.api.metric;

import java.util.List;

/**
 * The names of the Envoy data-plane metric family (SkyWalking's {@code envoy-metrics-rules}, layer
 * MESH_DP), in one place: the receiver names its samples with these constants and core's
 * metric table defines one metric per name, so the two cannot drift apart.
 */
public final class EnvoyMetricNames {
  private EnvoyMetricNames() {}

  public static final String HEAP_MEMORY_USED = "envoy_heap_memory_used";
  public static final String HEAP_MEMORY_MAX_USED = "envoy_heap_memory_max_used";
  public static final String MEMORY_ALLOCATED = "envoy_memory_allocated";
  public static final String MEMORY_ALLOCATED_MAX = "envoy_memory_allocated_max";
  public static final String MEMORY_PHYSICAL_SIZE = "envoy_memory_physical_size";
  public static final String MEMORY_PHYSICAL_SIZE_MAX = "envoy_memory_physical_size_max";
  public static final String TOTAL_CONNECTIONS_USED = "envoy_total_connections_used";
  public static final String PARENT_CONNECTIONS_USED = "envoy_parent_connections_used";
  public static final String WORKER_THREADS = "envoy_worker_threads";
  public static final String WORKER_THREADS_MAX = "envoy_worker_threads_max";
  public static final String BUG_FAILURES = "envoy_bug_failures";

  /** Instance gauges, averaged over the bucket. */
  public static final List<String> INSTANCE_GAUGES = List.of(
      HEAP_MEMORY_USED, HEAP_MEMORY_MAX_USED, MEMORY_ALLOCATED, MEMORY_ALLOCATED_MAX, MEMORY_PHYSICAL_SIZE,
      MEMORY_PHYSICAL_SIZE_MAX, TOTAL_CONNECTIONS_USED, PARENT_CONNECTIONS_USED, WORKER_THREADS,
      WORKER_THREADS_MAX, BUG_FAILURES);

  /**
   * Cluster metric suffixes: {@code envoy_<suffix>} per cluster on the instance, {@code envoy_sr_<suffix>} per
   * relation.
   */
  public static final String CLUSTER_MEMBERSHIP_HEALTHY = "cluster_membership_healthy";
  public static final String CLUSTER_UP_CX_ACTIVE = "cluster_up_cx_active";
  public static final String CLUSTER_UP_RQ_ACTIVE = "cluster_up_rq_active";
  public static final String CLUSTER_UP_RQ_PENDING_ACTIVE = "cluster_up_rq_pending_active";
  public static final String CLUSTER_UP_CX_INCR = "cluster_up_cx_incr";
  public static final String CLUSTER_UP_RQ_INCR = "cluster_up_rq_incr";
  public static final String CLUSTER_LB_HEALTHY_PANIC_INCR = "cluster_lb_healthy_panic_incr";
  public static final String CLUSTER_UP_CX_NONE_HEALTHY_INCR = "cluster_up_cx_none_healthy_incr";

  /** Per-cluster gauges (label {@code cluster_name}), averaged over the bucket. */
  public static final List<String> CLUSTER_GAUGES = List.of(
      CLUSTER_MEMBERSHIP_HEALTHY, CLUSTER_UP_CX_ACTIVE, CLUSTER_UP_RQ_ACTIVE, CLUSTER_UP_RQ_PENDING_ACTIVE);

  /** Per-cluster counter increases, summed over the bucket. */
  public static final List<String> CLUSTER_INCREASES = List.of(
      CLUSTER_UP_CX_INCR, CLUSTER_UP_RQ_INCR, CLUSTER_LB_HEALTHY_PANIC_INCR, CLUSTER_UP_CX_NONE_HEALTHY_INCR);

  /**
   * Per worker thread (label {@code worker}: {@code 0}, {@code 1}, ...): the connections open on it,
   * summed over the proxy's listeners, averaged over the bucket.
   */
  public static final String WORKER_CX_ACTIVE = "envoy_worker_cx_active";
  /** Per worker thread: the connections it accepted (its listeners' counters' increase). */
  public static final String WORKER_CX_INCR = "envoy_worker_cx_incr";
  /** Per thread (label {@code worker}, {@code main_thread} too): event-loop stalls over 200 ms. */
  public static final String WORKER_WATCHDOG_MISS_INCR = "envoy_worker_watchdog_miss_incr";
  /** Per thread: event-loop stalls over 1 s. */
  public static final String WORKER_WATCHDOG_MEGA_MISS_INCR = "envoy_worker_watchdog_mega_miss_incr";
  /**
   * Per listener (label {@code listener}, e.g. {@code 0.0.0.0_15006}): 100 × the busiest worker's
   * open connections over an even split's ({@code ceil(total / workers)}); 100 is as even as whole
   * connections allow, 100 × workers is everything on one worker. Averaged over the bucket.
   */
  public static final String LISTENER_CX_ACTIVE_IMBALANCE = "envoy_listener_cx_active_imbalance";
  /** Per listener: the same ratio for the connections accepted between two snapshots. */
  public static final String LISTENER_CX_INCR_IMBALANCE = "envoy_listener_cx_incr_imbalance";

  /**
   * Every {@code listener.*} statistic a proxy sends, as it sends it (label {@code metrics_name}, the
   * statistic's full name), averaged over the bucket: SkyWalking's {@code envoy_listener_metrics},
   * for rules and dashboards written against it. Istio sends none unless told to.
   */
  public static final String LISTENER_METRICS = "envoy_listener_metrics";

  /** Per-worker gauges (label {@code worker}), averaged over the bucket. */
  public static final List<String> WORKER_GAUGES = List.of(WORKER_CX_ACTIVE);
  /** Per-worker counter increases (label {@code worker}), summed over the bucket. */
  public static final List<String> WORKER_INCREASES =
      List.of(WORKER_CX_INCR, WORKER_WATCHDOG_MISS_INCR, WORKER_WATCHDOG_MEGA_MISS_INCR);
  /** Per-listener ratios (label {@code listener}), averaged over the bucket. */
  public static final List<String> LISTENER_RATIOS = List.of(LISTENER_CX_ACTIVE_IMBALANCE, LISTENER_CX_INCR_IMBALANCE);

  /** The per-cluster instance metric of a cluster suffix. */
  public static String perCluster(String suffix) {
    return "envoy_" + suffix;
  }

  /** The client-side service-relation metric of a cluster suffix. */
  public static String perRelation(String suffix) {
    return "envoy_sr_" + suffix;
  }

  /** Membership is charted per cluster only, with no relation form (as SkyWalking's rules). */
  public static boolean hasRelationForm(String suffix) {
    return !suffix.equals(CLUSTER_MEMBERSHIP_HEALTHY);
  }
}
