package io.sextant.storage.memory;

import io.sextant.api.storage.StorageComponent;
import io.sextant.testkit.storage.StorageComplianceTest;

/** The storage contract, held against the in-memory store. */
class MemoryStorageComplianceTest extends StorageComplianceTest {
  @Override
  protected StorageComponent newStorage() {
    return new MemoryStorage(new MemoryStorageConfig(100_000));
  }
}
