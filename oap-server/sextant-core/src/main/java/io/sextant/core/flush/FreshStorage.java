package io.sextant.core.flush;

import io.sextant.api.storage.ForwardingStorageComponent;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.StorageComponent;

/**
 * The storage as the query side sees it: metric reads go through {@link FreshMetrics}, everything
 * else straight to the backend. A view, not an owner: starting and closing it does nothing (the
 * server starts and closes the backend).
 */
public final class FreshStorage extends ForwardingStorageComponent {
  private final StorageComponent backend;
  private final MetricsStore metrics;

  public FreshStorage(StorageComponent backend, LiveMetrics live) {
    this.backend = backend;
    this.metrics = new FreshMetrics(live, backend::metrics);
  }

  @Override
  protected StorageComponent delegate() {
    return backend;
  }

  @Override
  public MetricsStore metrics() {
    return metrics;
  }

  @Override
  public void start() {}

  @Override
  public void close() {}
}
