package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.field;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.idl.RuntimeWiring;
import io.sextant.core.query.HierarchyQueries;
import io.sextant.core.query.HierarchyView.InstanceRelation;
import io.sextant.core.query.HierarchyView.LayerLevel;
import io.sextant.core.query.HierarchyView.RelatedInstance;
import io.sextant.core.query.HierarchyView.RelatedService;
import io.sextant.core.query.HierarchyView.ServiceRelation;
import io.sextant.query.graphql.Fetchers;
import io.sextant.query.graphql.SchemaArea;
import java.util.List;
import java.util.Map;

/**
 * hierarchy.graphqls: layer levels, and the services and instances above and below a given one,
 * which the UI's hierarchy jumps follow. An empty id answers no relations (as an unknown one
 * does); a malformed one answers an error.
 */
public record HierarchyArea(HierarchyQueries q) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("listLayerLevels", safe(env -> q.layerLevels()))
        .dataFetcher("getServiceHierarchy", safe(env -> {
          String id = env.getArgument("serviceId");
          if (!Fetchers.selectsService(id)) {
            return relations(List.of());
          }
          return relations(q.serviceHierarchy(id, env.getArgument("layer")));
        }))
        .dataFetcher("getInstanceHierarchy", safe(env -> {
          String id = env.getArgument("instanceId");
          if (!Fetchers.selectsChild(id)) {
            return relations(List.of());
          }
          return relations(q.instanceHierarchy(id, env.getArgument("layer")));
        })));
    w.type("LayerLevel", t -> t.dataFetcher("layer", field(LayerLevel::layer))
        .dataFetcher("level", field(LayerLevel::level)));
    w.type("HierarchyServiceRelation", t -> t
        .dataFetcher("upperService", field(ServiceRelation::upperService))
        .dataFetcher("lowerService", field(ServiceRelation::lowerService)));
    w.type("HierarchyRelatedService", t -> t.dataFetcher("id", field(RelatedService::id))
        .dataFetcher("name", field(RelatedService::name)).dataFetcher("layer", field(RelatedService::layer))
        .dataFetcher("normal", field(RelatedService::normal)));
    w.type("HierarchyInstanceRelation", t -> t
        .dataFetcher("upperInstance", field(InstanceRelation::upperInstance))
        .dataFetcher("lowerInstance", field(InstanceRelation::lowerInstance)));
    w.type("HierarchyRelatedInstance", t -> t.dataFetcher("id", field(RelatedInstance::id))
        .dataFetcher("name", field(RelatedInstance::name))
        .dataFetcher("serviceId", field(RelatedInstance::serviceId))
        .dataFetcher("serviceName", field(RelatedInstance::serviceName))
        .dataFetcher("layer", field(RelatedInstance::layer))
        .dataFetcher("normal", field(RelatedInstance::normal)));
  }

  /** ServiceHierarchy and InstanceHierarchy are both {@code { relations }}. */
  private static Map<String, Object> relations(List<?> relations) {
    return Map.of("relations", relations);
  }
}
