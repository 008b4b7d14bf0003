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
 * windows). A failing pass is counted and logged once until one works again; reads then search
 * Elasticsearch themselves, as their cached copies grow older than the staleness bound.
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

  private void runPasses() {
    for (Pass p : passes) {
      try {
        searches.increment(p.follow());
        if (failing) {
          failing = false;
          LOG.info("following what reads asked lately works again");
        }
      } catch (RuntimeException e) {
        failures.increment();
        if (!failing) {
          failing = true;
          LOG.warn("following what reads asked lately failed; reads search Elasticsearch themselves until it works"
              + " again: {}", e.toString());
        }
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
