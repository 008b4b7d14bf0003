package io.sextant.core.query;

import io.sextant.api.storage.StorageComponent;
import io.sextant.core.metric.MetricCatalog;

/**
 * The read side, one service per schema area, each answering from storage by merging what all
 * collectors wrote. GraphQL areas call only these; areas to come (profiling, records, management)
 * add a service here.
 */
public record QueryServices(MetadataQueries metadata, TopologyQueries topology, MetricQueries metrics,
    EventQueries events, RecordQueries records, HierarchyQueries hierarchy) {
  public static QueryServices over(StorageComponent storage, MetricCatalog catalog) {
    MetadataQueries metadata = new MetadataQueries(storage);
    return new QueryServices(metadata, new TopologyQueries(storage), new MetricQueries(storage, catalog, metadata),
        new EventQueries(storage), RecordQueries.over(storage), new HierarchyQueries(storage));
  }
}
