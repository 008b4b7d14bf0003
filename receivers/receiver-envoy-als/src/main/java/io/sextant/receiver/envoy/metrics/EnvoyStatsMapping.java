package io.sextant.receiver.als;

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
      "server.memory_heap_size", List.of("envoy_heap_memory_used", "envoy_heap_memory_max_used"),
      "server.memory_allocated", List.of("envoy_memory_allocated", "envoy_memory_allocated_max"),
      "server.memory_physical_size", List.of("envoy_memory_physical_size", "envoy_memory_physical_size_max"),
      "server.total_connections", List.of("envoy_total_connections_used"),
      "server.parent_connections", List.of("envoy_parent_connections_used"),
      "server.concurrency", List.of("envoy_worker_threads", "envoy_worker_threads_max"),
      "server.envoy_bug_failures", List.of("envoy_bug_failures"));

  /** Cluster stat suffix → metric suffix (after {@code envoy_} / {@code envoy_sr_}); counters increase. */
  static final Map<String, String> CLUSTER_GAUGES = Map.of(
      "membership_healthy", "cluster_membership_healthy",
      "upstream_cx_active", "cluster_up_cx_active",
      "upstream_rq_active", "cluster_up_rq_active",
      "upstream_rq_pending_active", "cluster_up_rq_pending_active");
  static final Map<String, String> CLUSTER_COUNTERS = Map.of(
      "upstream_cx_total", "cluster_up_cx_incr",
      "upstream_rq_total", "cluster_up_rq_incr",
      "lb_healthy_panic", "cluster_lb_healthy_panic_incr",
      "upstream_cx_none_healthy", "cluster_up_cx_none_healthy_incr");

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
