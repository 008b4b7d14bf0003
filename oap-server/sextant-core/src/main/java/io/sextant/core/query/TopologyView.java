package io.sextant.core.query;

import java.util.List;

/** Topology answers, shaped like the query protocol's types so the GraphQL layer maps them 1:1. */
public final class TopologyView {
  private TopologyView() {}

  public record Node(String id, String name, String type, boolean isReal, List<String> layers) {}

  public record InstanceNode(
      String id, String name, String serviceId, String serviceName, String type, boolean isReal) {}

  public record Call(
      String id,
      String source,
      String target,
      List<String> detectPoints,
      List<String> sourceComponents,
      List<String> targetComponents) {}

  public record Topology(List<Node> nodes, List<Call> calls) {}

  public record InstanceTopology(List<InstanceNode> nodes, List<Call> calls) {}

  /** A process of {@code getProcessTopology}; {@code isReal} is false for virtual processes. */
  public record ProcessNode(String id, String serviceId, String serviceName, String serviceInstanceId,
      String serviceInstanceName, String name, boolean isReal) {}

  public record ProcessTopology(List<ProcessNode> nodes, List<Call> calls) {}
}
