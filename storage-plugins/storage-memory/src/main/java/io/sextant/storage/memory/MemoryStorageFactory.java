package io.sextant.storage.memory;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.api.plugin.StorageFactory;
import io.sextant.api.storage.StorageComponent;
import java.util.List;

/** {@code storage.selector: memory}: the embedded store, with its bounds' self-metrics. */
public final class MemoryStorageFactory implements StorageFactory {
  @Override
  public String name() {
    return "memory";
  }

  @Override
  public List<ConfigKey> keys() {
    return MemoryStorageConfig.KEYS;
  }

  @Override
  public StorageComponent create(Settings settings, MeterRegistry meters) {
    MemoryStorage memory = new MemoryStorage(MemoryStorageConfig.load(settings));
    meters.more().counter("sextant_storage_memory_evicted_partials", List.of(), memory, MemoryStorage::evictedPartials);
    meters.gauge("sextant_storage_memory_partials", memory, MemoryStorage::partialCount);
    meters.gauge("sextant_storage_memory_partial_bytes", memory, MemoryStorage::partialBytes);
    meters.more().counter("sextant_storage_memory_evicted_records", List.of(), memory, MemoryStorage::evictedRecords);
    meters.gauge("sextant_storage_memory_records", memory, MemoryStorage::recordCount);
    meters.gauge("sextant_storage_memory_metadata_bytes", memory, MemoryStorage::metadataBytes);
    meters.more().counter("sextant_storage_memory_evicted_metadata", List.of(), memory,
        MemoryStorage::evictedMetadata);
    meters.gauge("sextant_storage_memory_edge_bytes", memory, MemoryStorage::edgeBytes);
    meters.more().counter("sextant_storage_memory_evicted_edges", List.of(), memory, MemoryStorage::evictedEdges);
    return memory;
  }
}
