package io.sextant.core.query;

import io.sextant.api.storage.StorageComponent;
import io.sextant.core.management.ShippedTemplates;
import io.sextant.core.management.UiMenu;
import io.sextant.core.management.UiTemplates;
import io.sextant.core.metric.MetricCatalog;

/**
 * The read side, one service per schema area, each answering from storage by merging what all
 * collectors wrote. GraphQL areas call only these; areas to come (profiling, records, management)
 * add a service here. {@code templates} also holds the UI template writes (version-checked).
 */
public record QueryServices(MetadataQueries metadata, TopologyQueries topology, MetricQueries metrics,
    EventQueries events, RecordQueries records, HierarchyQueries hierarchy, UiTemplates templates,
    UiMenu menu, ProcessQueries processes) {
  public static QueryServices over(StorageComponent storage, MetricCatalog catalog) {
    MetadataQueries metadata = new MetadataQueries(storage);
    return new QueryServices(metadata, new TopologyQueries(storage), new MetricQueries(storage, catalog, metadata),
        new EventQueries(storage), RecordQueries.over(storage), new HierarchyQueries(storage),
        new UiTemplates(storage::management, ShippedTemplates::fromClasspath), new UiMenu(metadata::layers),
        new ProcessQueries(storage));
  }
}
