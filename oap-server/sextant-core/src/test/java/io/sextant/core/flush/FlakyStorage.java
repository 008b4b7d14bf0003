package io.sextant.core.flush;

import io.sextant.api.component.CheckResult;
import io.sextant.api.storage.ForwardingStorageComponent;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The memory store behind a switch: while {@code down}, metric writes throw and the probe fails. */
class FlakyStorage extends ForwardingStorageComponent {
  final MemoryStorage delegate = new MemoryStorage(new MemoryStorageConfig(1_000_000));
  final AtomicInteger writeAttempts = new AtomicInteger();
  final AtomicInteger checks = new AtomicInteger();
  volatile boolean down;

  private final MetricsStore metrics = new MetricsStore() {
    @Override
    public void write(List<PartialRow> rows) {
      beforeWrite();
      writeAttempts.incrementAndGet();
      if (down) {
        throw new IllegalStateException("store unreachable");
      }
      delegate.metrics().write(rows);
    }

    @Override
    public List<MetricPartial> read(String metric, Collection<String> ids, Step step, long start, long end) {
      return delegate.metrics().read(metric, ids, step, start, end);
    }
  };

  /** Called as each metric write starts; a test holds writes in flight here. */
  void beforeWrite() {}

  @Override
  protected StorageComponent delegate() {
    return delegate;
  }

  @Override
  public MetricsStore metrics() {
    return metrics;
  }

  @Override
  public CheckResult check() {
    checks.incrementAndGet();
    return down ? CheckResult.failed("store unreachable") : CheckResult.OK;
  }
}
