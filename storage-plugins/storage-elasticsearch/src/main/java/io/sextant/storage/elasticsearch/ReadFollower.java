package io.sextant.storage.elasticsearch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that keeps what reads asked lately up to date, so that those reads answer from
 * memory: every {@code intervalMillis} it runs each store's pass (metric series, topology
 * windows). A failing pass is counted and logged once until a round searches without a failure;
 * reads then search Elasticsearch themselves, as their cached copies grow older than the staleness
 * bound.
 */
final class ReadFollower implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReadFollower.class);

  /** A store's pass; answers how many searches it made. */
  interface Pass {
    int follow();
  }

  private final List<Pass> passes;
  private final ScheduledExecutorService thread;
  private final Counter searches;
  private final Counter failures;
  private volatile boolean failing;

  ReadFollower(List<Pass> passes, long intervalMillis, MeterRegistry registry) {
    this.passes = passes;
    String description = "searches that brought what reads asked lately (metric series, topology) up to date";
    this.searches = Counter.builder("sextant_es_read_follows").tag("outcome", "ok").description(description)
        .register(registry);
    this.failures = Counter.builder("sextant_es_read_follows").tag("outcome", "failed").description(description)
        .register(registry);
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sextant-es-read-follower");
      t.setDaemon(true);
      return t;
    });
    thread.scheduleWithFixedDelay(this::runPasses, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * One round of every pass. The outcome is the round's, not each pass's: while Elasticsearch is
   * down one pass fails and another may have had nothing to search, which is no sign it is back
   * (judged by each pass, the log said "failed" and "works again" every round).
   */
  void runPasses() {
    RuntimeException failed = null;
    int searched = 0;
    for (Pass p : passes) {
      try {
        searched += p.follow();
      } catch (RuntimeException e) {
        failures.increment();
        failed = e;
      }
    }
    searches.increment(searched);
    if (failed != null && !failing) {
      failing = true;
      LOG.warn("following what reads asked lately failed; reads search Elasticsearch themselves until it works"
          + " again: {}", failed.toString());
    } else if (failed == null && searched > 0 && failing) {
      failing = false;
      LOG.info("following what reads asked lately works again");
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
