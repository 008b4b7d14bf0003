package io.sextant.testkit.storage;

import io.sextant.api.storage.StorageComponent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every facet's compliance class shares: a new, empty store per test and a way to make writes
 * visible. A backend's test nests each facet class ({@code @Nested}) and says how to make its store.
 */
public abstract class StorageCompliance {
  protected StorageComponent storage;

  /** A new, empty store, started. Called before each test. */
  protected abstract StorageComponent newStorage() throws Exception;

  /** Makes everything written so far visible to reads (a refresh for search engines). */
  protected void awaitWrites() throws Exception {}

  @BeforeEach
  void open() throws Exception {
    storage = newStorage();
  }

  @AfterEach
  void close() {
    storage.close();
  }
}
