package io.sextant.storage.memory;

import io.sextant.api.storage.StorageComponent;
import io.sextant.testkit.storage.ManagementStoreCompliance;
import io.sextant.testkit.storage.MetadataStoreCompliance;
import io.sextant.testkit.storage.MetricsStoreCompliance;
import io.sextant.testkit.storage.RecordStoreCompliance;
import io.sextant.testkit.storage.TopologyStoreCompliance;
import org.junit.jupiter.api.Nested;

/** The storage contract, facet by facet, held against the in-memory store. */
class MemoryStorageComplianceTest {
  static StorageComponent newMemoryStorage() {
    return new MemoryStorage(new MemoryStorageConfig(100_000, 1440, 168, 30, 100_000, 1440, 1000, 0));
  }

  @Nested
  class Metrics extends MetricsStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return newMemoryStorage();
    }
  }

  @Nested
  class Topology extends TopologyStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return newMemoryStorage();
    }
  }

  @Nested
  class Metadata extends MetadataStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return newMemoryStorage();
    }
  }

  @Nested
  class Records extends RecordStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return newMemoryStorage();
    }
  }

  /** Two threads on one store: the in-process twin of two collectors. */
  @Nested
  class Management extends ManagementStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return newMemoryStorage();
    }
  }
}
