package io.sextant.core.query;

import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.management.ShippedTemplate;
import io.sextant.core.management.ShippedTemplates;
import io.sextant.core.management.UiMenu;
import io.sextant.core.management.UiTemplates;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.profiling.ProfilingServices;
import io.sextant.core.profiling.continuous.ContinuousProfilingQueries;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Supplier;

/**
 * The read side, one service per schema area, each answering from storage by merging what all
 * collectors wrote. GraphQL areas call only these; a new area adds its service here. {@code
 * templates} also holds the UI template writes (version-checked). Alarms are not here: {@code
 * core.alarm} evaluates its rules through these services, so the alarm side owns its own reads
 * ({@code AlarmQueries}) and this package names nothing of it.
 */
public record QueryServices(MetadataQueries metadata, TopologyQueries topology, MetricQueries metrics,
    EventQueries events, LogQueries logs, RecordQueries records, HierarchyQueries hierarchy, UiTemplates templates,
    UiMenu menu, ContinuousProfilingQueries continuousProfiling, ProfilingServices profiling,
    ProcessQueries processes) {
  /** Over storage, with minute buckets in UTC (tests and tools). */
  public static QueryServices over(StorageComponent storage, MetricCatalog catalog) {
    return over(storage, catalog, new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()));
  }

  /** Over storage, with minute buckets in the server's zone (what receivers write). */
  public static QueryServices over(StorageComponent storage, MetricCatalog catalog, TimeBuckets buckets) {
    return over(storage, catalog, buckets, ShippedTemplates::fromClasspath);
  }

  /** As above, installing {@code shipped} into the template store at a start. */
  public static QueryServices over(StorageComponent storage, MetricCatalog catalog, TimeBuckets buckets,
      Supplier<List<ShippedTemplate>> shipped) {
    MetadataQueries metadata = new MetadataQueries(storage);
    RecordQueries records = RecordQueries.over(storage, buckets.zone());
    return new QueryServices(metadata, new TopologyQueries(storage),
        new MetricQueries(storage, catalog, metadata, records), new EventQueries(storage),
        new LogQueries(storage), records,
        new HierarchyQueries(storage),
        new UiTemplates(storage::management, shipped), new UiMenu(metadata::layers),
        new ContinuousProfilingQueries(storage::management, storage::metadata, buckets),
        ProfilingServices.over(storage, Clock.system(buckets.zone())),
        new ProcessQueries(storage));
  }
}
