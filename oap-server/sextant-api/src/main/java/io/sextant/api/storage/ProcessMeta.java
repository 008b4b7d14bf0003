package io.sextant.api.storage;

import java.util.List;
import java.util.Map;

/**
 * An operating-system process seen by SkyWalking Rover (or a virtual one standing for a peer Rover
 * could not name), under a service instance. {@code id} is SkyWalking's process id (the hex SHA-256
 * of {@code "<processName>_<instanceId>"}, as the eBPF side computes it: the storage SPI names nothing
 * of {@code api.ebpf}, which builds on it).
 * {@code detectType} is SkyWalking's: {@code VM}, {@code KUBERNETES} or {@code VIRTUAL}. {@code
 * agentId} is the Rover that reported it (empty for virtual processes). {@code firstSeen} and {@code
 * lastPing} are minute buckets; liveness is the last ping.
 *
 * <p>Upserts merge: first seen is the minimum, last ping the maximum; the descriptive fields
 * (layer, agent, detect type, labels, properties) are those of the report with the latest ping,
 * except that an empty value never replaces a known one; profiling support goes with the properties
 * (Rover sends them in full only in its reports, on discovery and every tenth heartbeat).
 */
public record ProcessMeta(
    String id,
    String serviceId,
    String instanceId,
    String name,
    String layer,
    String agentId,
    String detectType,
    List<String> labels,
    Map<String, String> properties,
    boolean profilingSupported,
    long firstSeen,
    long lastPing) {

  public ProcessMeta {
    labels = List.copyOf(labels);
    properties = Map.copyOf(properties);
  }

  /**
   * The merge every store applies to two reports of one process (in either order): the one with
   * the later ping describes it, but an empty value never replaces a known one; on equal pings
   * {@code b} counts as the newer.
   */
  public static ProcessMeta merge(ProcessMeta a, ProcessMeta b) {
    ProcessMeta older = b.lastPing() < a.lastPing() ? b : a;
    ProcessMeta newer = older == a ? b : a;
    return new ProcessMeta(a.id(), a.serviceId(), a.instanceId(), a.name(),
        orElse(newer.layer(), older.layer()), orElse(newer.agentId(), older.agentId()),
        orElse(newer.detectType(), older.detectType()),
        newer.labels().isEmpty() ? older.labels() : newer.labels(),
        newer.properties().isEmpty() ? older.properties() : newer.properties(),
        newer.properties().isEmpty() ? older.profilingSupported() : newer.profilingSupported(),
        Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastPing(), b.lastPing()));
  }

  private static String orElse(String value, String fallback) {
    return value == null || value.isEmpty() ? fallback : value;
  }
}
