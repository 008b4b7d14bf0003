package io.sextant.core.flush;

import io.sextant.api.component.CheckResult;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.TopologyStore;
import io.sextant.api.time.TimeBuckets;

/**
 * The storage as the query side sees it: metric reads go through {@link FreshMetrics}, everything
 * else straight to the backend. A view, not an owner: starting and closing it does nothing (the
 * server starts and closes the backend).
 */
public final class FreshStorage implements StorageComponent {
  private final StorageComponent backend;
  private final MetricsStore metrics;

  public FreshStorage(StorageComponent backend, LiveMetrics live) {
    this.backend = backend;
    this.metrics = new FreshMetrics(live, backend::metrics);
  }

  @Override
  public MetricsStore metrics() {
    return metrics;
  }

  @Override
  public TopologyStore topology() {
    return backend.topology();
  }

  @Override
  public MetadataStore metadata() {
    return backend.metadata();
  }

  @Override
  public RecordStore records() {
    return backend.records();
  }

  @Override
  public ManagementStore management() {
    return backend.management();
  }

  @Override
  public Retention retention() {
    return backend.retention();
  }

  @Override
  public void applyRetention(TimeBuckets buckets) {
    backend.applyRetention(buckets);
  }

  @Override
  public void publish() {
    backend.publish();
  }

  @Override
  public CheckResult check() {
    return backend.check();
  }

  @Override
  public void close() {}
}
