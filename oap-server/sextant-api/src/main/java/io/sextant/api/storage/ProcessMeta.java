package io.sextant.api.storage;

import java.util.List;
import java.util.Map;

/**
 * An operating-system process seen by SkyWalking Rover (or a virtual one standing for a peer Rover
 * could not name), under a service instance. {@code id} is {@link io.sextant.api.ebpf.ProcessIds#processId}.
 * {@code detectType} is SkyWalking's: {@code VM}, {@code KUBERNETES} or {@code VIRTUAL}. {@code
 * agentId} is the Rover that reported it (empty for virtual processes). {@code firstSeen} and {@code
 * lastPing} are minute buckets; liveness is the last ping.
 *
 * <p>Upserts merge: first seen is the minimum, last ping the maximum; the descriptive fields
 * (layer, agent, detect type, labels, properties) are those of the report with the latest ping,
 * except that an empty value never replaces a known one; profiling support goes with the properties
 * (Rover sends them only every tenth ping).
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
}
