package io.sextant.server.lifecycle;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.component.CheckResult;
import java.util.Locale;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this collector can take more data: started, not draining, and its write queue below the
 * high-water mark. Nothing else gates it: not storage, not a warm-up, not the JIT. Storage health is probed and
 * reported beside it, never folded into it: while Elasticsearch is away the queue holds what
 * arrives, and a collector that left its Service because of the outage would only make Envoy drop
 * access logs at the source. A collector whose queue reaches the high-water mark goes unready so
 * balancers move new streams elsewhere, and comes back once the queue has fallen
 * {@value #HYSTERESIS_PERCENT} points below it (no flapping at the mark).
 */
public final class Readiness {
  private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);
  static final int HYSTERESIS_PERCENT = 10;

  private final DoubleSupplier queueFill;
  private final Supplier<CheckResult> storageProbe;
  private final double highWater;
  private final double lowWater;
  private volatile boolean serving;
  private volatile boolean draining;
  private volatile boolean shedding;
  private volatile CheckResult storage = CheckResult.failed("not probed yet");

  /**
   * @param queueFill the write queue's fill, 0 to 1
   * @param highWaterPercent the fill, in percent, at and above which the collector is not ready
   */
  public Readiness(DoubleSupplier queueFill, Supplier<CheckResult> storageProbe, int highWaterPercent,
      MeterRegistry registry) {
    this.queueFill = queueFill;
    this.storageProbe = storageProbe;
    this.highWater = highWaterPercent / 100.0;
    this.lowWater = Math.max(0, highWaterPercent - HYSTERESIS_PERCENT) / 100.0;
    Gauge.builder("sextant_storage_up", this, r -> r.storage.ok() ? 1 : 0)
        .description("1 while the last storage probe (every 5 s) succeeded; not part of readiness")
        .register(registry);
    Gauge.builder("sextant_ready", this, r -> r.check().ok() ? 1 : 0)
        .description("1 while /readyz answers 200: started, not draining, write queue below the high-water mark")
        .register(registry);
  }

  public void serving() {
    serving = true;
  }

  public void draining() {
    draining = true;
  }

  /** Ready to take more data; the detail says why not. */
  public CheckResult check() {
    if (!serving) {
      return CheckResult.failed("starting");
    }
    if (draining) {
      return CheckResult.failed("draining");
    }
    double fill = queueFill.getAsDouble();
    synchronized (this) {
      if (!shedding && fill >= highWater) {
        shedding = true;
        LOG.warn("not ready: the write queue is {} full (high-water mark {}): balancers should send new streams"
            + " elsewhere", percent(fill), percent(highWater));
      } else if (shedding && fill < lowWater) {
        shedding = false;
        LOG.info("ready again: the write queue is down to {} full", percent(fill));
      }
    }
    return shedding ? CheckResult.failed("write queue " + percent(fill) + " full (high-water mark "
        + percent(highWater) + ")") : CheckResult.OK;
  }

  /** Health as {@code checkHealth} reports it: ready and storage up. */
  public CheckResult health() {
    CheckResult ready = check();
    if (!ready.ok()) {
      return ready;
    }
    CheckResult s = storage;
    return s.ok() ? CheckResult.OK : CheckResult.failed("storage: " + s.detail());
  }

  /** Probes storage once and logs when its state changes; run on a thread of its own, it may block. */
  public void probeStorage() {
    CheckResult now;
    try {
      now = storageProbe.get();
    } catch (RuntimeException e) {
      now = CheckResult.failed(e.toString());
    }
    CheckResult before = storage;
    storage = now;
    if (now.ok() && !before.ok()) {
      LOG.info("storage is up");
    } else if (!now.ok() && (before.ok() || !before.detail().equals(now.detail()))) {
      LOG.warn("storage is down ({}); still ready: accepted data waits in the write queue, {} full",
          now.detail(), percent(queueFill.getAsDouble()));
    }
  }

  /** The answer of {@code /readyz?verbose}: readiness, then each thing it weighs and storage. */
  public String verbose() {
    CheckResult ready = check();
    CheckResult s = storage;
    return (ready.ok() ? "ready" : "not ready: " + ready.detail()) + "\n"
        + "[" + (serving && !draining ? "+" : "-") + "] serving" + (draining ? " (draining)" : "") + "\n"
        + "[" + (shedding ? "-" : "+") + "] write queue " + percent(queueFill.getAsDouble()) + " full (high-water mark "
        + percent(highWater) + ")\n"
        + "[" + (s.ok() ? "+" : "-") + "] storage " + (s.ok() ? "up" : "down: " + s.detail())
        + " (not part of readiness)\n";
  }

  private static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
  }
}
