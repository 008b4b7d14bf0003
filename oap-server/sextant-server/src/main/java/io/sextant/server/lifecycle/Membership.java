package io.sextant.server.lifecycle;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.compact.CompactionConfig;
import io.sextant.core.compact.Compactor;
import io.sextant.core.management.CollectorRoster;
import io.sextant.core.metric.MetricCatalog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This collector among those sharing a store: listed in the roster every beat (SkyWalking's
 * cluster nodes), taken off it at a stop, and compacting its share of closed buckets by its place
 * there. Storage I/O that may block, so each runs on a thread its caller gives it; a failure is
 * logged and retried at the next run.
 */
public final class Membership {
  private static final Logger LOG = LoggerFactory.getLogger(Membership.class);
  private final CollectorRoster roster;
  private final Duration beat;

  public Membership(CollectorRoster roster, Duration beat) {
    this.roster = roster;
    this.beat = beat;
  }

  /** Lists this collector every beat on {@code thread}; registers leaving the list in {@code started}. */
  public void join(ScheduledExecutorService thread, StartOrder started) {
    Future<?> beats = thread.scheduleWithFixedDelay(this::beat, 0, beat.toSeconds(), TimeUnit.SECONDS);
    started.start("roster", () -> {}, () -> leave(beats));
  }

  /**
   * Compacts closed buckets on a thread of its own (its bulk requests may take seconds), this
   * collector's share by its place in the roster; nothing when {@code config} is off.
   */
  public void compact(StartOrder started, CompactionConfig config, StorageComponent storage, MetricCatalog catalog,
      TimeBuckets buckets, String collectorId, int graceMinutes, MeterRegistry registry) {
    if (!config.on()) {
      return;
    }
    Compactor compactor = new Compactor(storage::metrics, catalog, buckets, this::liveCollectors, collectorId,
        Math.max(config.afterMinutes(), graceMinutes + 2), config.lookbackMinutes(), registry);
    Future<?> unusedCompaction = started.scheduler("compactor").scheduleWithFixedDelay(() -> {
      try {
        compactor.runOnce();
      } catch (RuntimeException e) {
        LOG.warn("compaction failed; closed minutes stay as they are until the next pass", e);
      }
    }, config.intervalSeconds(), config.intervalSeconds(), TimeUnit.SECONDS);
  }

  private List<String> liveCollectors() {
    try {
      return roster.live().stream().map(CollectorRoster.Member::collectorId).toList();
    } catch (RuntimeException e) {
      return List.of(); // compacts every entity: more work, same result
    }
  }

  /** Stops the beats, then takes this collector off the list at once rather than after three missed beats. */
  private void leave(Future<?> beats) {
    beats.cancel(false);
    try {
      roster.leave();
    } catch (RuntimeException e) {
      LOG.debug("could not remove this collector from the list in storage; it drops out on its own", e);
    }
  }

  private void beat() {
    try {
      roster.beat();
    } catch (RuntimeException e) {
      LOG.debug("could not list this collector in storage; retried in {}", beat, e);
    }
  }
}
