package io.sextant.receiver.envoy.metrics;

import static io.sextant.api.metric.EnvoyMetricNames.BUG_FAILURES;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_LB_HEALTHY_PANIC_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_MEMBERSHIP_HEALTHY;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_CX_ACTIVE;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_CX_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_CX_NONE_HEALTHY_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_RQ_ACTIVE;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_RQ_INCR;
import static io.sextant.api.metric.EnvoyMetricNames.CLUSTER_UP_RQ_PENDING_ACTIVE;
import static io.sextant.api.metric.EnvoyMetricNames.HEAP_MEMORY_MAX_USED;
import static io.sextant.api.metric.EnvoyMetricNames.HEAP_MEMORY_USED;
import static io.sextant.api.metric.EnvoyMetricNames.MEMORY_ALLOCATED;
import static io.sextant.api.metric.EnvoyMetricNames.MEMORY_ALLOCATED_MAX;
import static io.sextant.api.metric.EnvoyMetricNames.MEMORY_PHYSICAL_SIZE;
import static io.sextant.api.metric.EnvoyMetricNames.MEMORY_PHYSICAL_SIZE_MAX;
import static io.sextant.api.metric.EnvoyMetricNames.PARENT_CONNECTIONS_USED;
import static io.sextant.api.metric.EnvoyMetricNames.TOTAL_CONNECTIONS_USED;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_THREADS;
import static io.sextant.api.metric.EnvoyMetricNames.WORKER_THREADS_MAX;

import java.util.List;
import java.util.Map;

/**
 * Which Envoy statistics feed which SkyWalking MESH_DP metric, as SkyWalking's envoy metric rules
 * define them. Server stats map one to one (several metrics may read the same stat); cluster stats
 * ({@code cluster.<name>.<stat>}) become per-cluster instance metrics and, for outbound clusters,
 * client-side service-relation metrics.
 */
final class EnvoyStatsMapping {
  /** {@code server.*} stat → metric names. */
  static final Map<String, List<String>> SERVER = Map.of(
      "server.memory_heap_size", List.of(HEAP_MEMORY_USED, HEAP_MEMORY_MAX_USED),
      "server.memory_allocated", List.of(MEMORY_ALLOCATED, MEMORY_ALLOCATED_MAX),
      "server.memory_physical_size", List.of(MEMORY_PHYSICAL_SIZE, MEMORY_PHYSICAL_SIZE_MAX),
      "server.total_connections", List.of(TOTAL_CONNECTIONS_USED),
      "server.parent_connections", List.of(PARENT_CONNECTIONS_USED),
      "server.concurrency", List.of(WORKER_THREADS, WORKER_THREADS_MAX),
      "server.envoy_bug_failures", List.of(BUG_FAILURES));

  /** Cluster stat suffix → metric suffix (after {@code envoy_} / {@code envoy_sr_}); counters increase. */
  static final Map<String, String> CLUSTER_GAUGES = Map.of(
      "membership_healthy", CLUSTER_MEMBERSHIP_HEALTHY,
      "upstream_cx_active", CLUSTER_UP_CX_ACTIVE,
      "upstream_rq_active", CLUSTER_UP_RQ_ACTIVE,
      "upstream_rq_pending_active", CLUSTER_UP_RQ_PENDING_ACTIVE);
  static final Map<String, String> CLUSTER_COUNTERS = Map.of(
      "upstream_cx_total", CLUSTER_UP_CX_INCR,
      "upstream_rq_total", CLUSTER_UP_RQ_INCR,
      "lb_healthy_panic", CLUSTER_LB_HEALTHY_PANIC_INCR,
      "upstream_cx_none_healthy", CLUSTER_UP_CX_NONE_HEALTHY_INCR);

  private EnvoyStatsMapping() {}

  /** A parsed {@code cluster.<cluster>.<stat>} name, or null if it is not one we map. */
  record ClusterStat(String cluster, String stat, boolean outbound) {}

  static ClusterStat parseCluster(String name) {
    if (!name.startsWith("cluster.")) {
      return null;
    }
    int lastDot = name.lastIndexOf('.');
    if (lastDot <= "cluster.".length()) {
      return null;
    }
    String stat = name.substring(lastDot + 1);
    if (!CLUSTER_GAUGES.containsKey(stat) && !CLUSTER_COUNTERS.containsKey(stat)) {
      return null;
    }
    String cluster = name.substring("cluster.".length(), lastDot);
    return new ClusterStat(cluster, stat, cluster.startsWith("outbound|"));
  }

  /**
   * The cluster's name as the mesh names services: {@code outbound|9080|v1|reviews.default.svc...}
   * → {@code reviews.default}; {@code inbound|9080||} → {@code inbound:9080}; null for others
   * (e.g. Envoy's own clusters), which are not charted.
   */
  static String clusterName(String cluster) {
    String[] parts = cluster.split("\\|", -1);
    if (cluster.startsWith("outbound|") && parts.length >= 4) {
      String[] host = parts[3].split("\\.");
      return host.length >= 2 ? host[0] + "." + host[1] : null;
    }
    if (cluster.startsWith("inbound|") && parts.length >= 2) {
      return "inbound:" + parts[1];
    }
    return null;
  }

  /** SkyWalking leaves kube-system clusters out of the membership chart. */
  static boolean excludedFromMembership(String clusterName) {
    return clusterName.endsWith(".kube-system");
  }
}
