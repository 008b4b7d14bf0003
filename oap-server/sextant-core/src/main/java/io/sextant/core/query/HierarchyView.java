package io.sextant.core.query;

/** Hierarchy answers, shaped like hierarchy.graphqls's types so the GraphQL layer maps them 1:1. */
public final class HierarchyView {
  private HierarchyView() {}

  /** A service as one of its layers: the same service in two layers is two of these. */
  public record RelatedService(String id, String name, String layer, boolean normal) {}

  public record ServiceRelation(RelatedService upperService, RelatedService lowerService) {}

  public record RelatedInstance(
      String id, String name, String serviceId, String serviceName, String layer, boolean normal) {}

  public record InstanceRelation(RelatedInstance upperInstance, RelatedInstance lowerInstance) {}

  public record LayerLevel(String layer, int level) {}
}
