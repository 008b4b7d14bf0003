package io.sextant.api.storage;

import io.sextant.api.component.CheckResult;
import io.sextant.api.time.TimeBuckets;

/**
 * A storage component that hands every call to {@link #delegate()}: a decorator overrides only what
 * it changes (as Zipkin's {@code ForwardingStorageComponent}). A facet added to {@link
 * StorageComponent} gets its forwarding method here, once.
 */
public abstract class ForwardingStorageComponent implements StorageComponent {
  protected abstract StorageComponent delegate();

  @Override
  public MetricsStore metrics() {
    return delegate().metrics();
  }

  @Override
  public TopologyStore topology() {
    return delegate().topology();
  }

  @Override
  public MetadataStore metadata() {
    return delegate().metadata();
  }

  @Override
  public RecordStore records() {
    return delegate().records();
  }

  @Override
  public ManagementStore management() {
    return delegate().management();
  }

  @Override
  public Retention retention() {
    return delegate().retention();
  }

  @Override
  public void applyRetention(TimeBuckets buckets) {
    delegate().applyRetention(buckets);
  }

  @Override
  public void publish() {
    delegate().publish();
  }

  @Override
  public void start() {
    delegate().start();
  }

  @Override
  public CheckResult check() {
    return delegate().check();
  }

  @Override
  public void close() {
    delegate().close();
  }
}
