package io.sextant.server.lifecycle;

import io.sextant.core.query.QueryServices;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the shipped dashboards on the thread given, never the starting one: storage may be down
 * or frozen, and a start never waits on it. Failures are retried in the background with backoff up
 * to a minute apart, each logged. {@link #installed} completes once they are in.
 */
public final class ShippedTemplates {
  private static final Logger LOG = LoggerFactory.getLogger(ShippedTemplates.class);

  private final QueryServices query;
  private final ScheduledExecutorService retries;
  private final CompletableFuture<Void> installed = new CompletableFuture<>();

  public ShippedTemplates(QueryServices query, ScheduledExecutorService retries) {
    this.query = query;
    this.retries = retries;
  }

  /** Starts installing them on the retries' thread. */
  public ShippedTemplates install() {
    Future<?> unused = retries.submit(() -> install(1));
    return this;
  }

  public CompletableFuture<Void> installed() {
    return installed;
  }

  private void install(int attempt) {
    try {
      LOG.info("shipped UI templates: {}", query.templates().loadShipped());
      installed.complete(null);
    } catch (RuntimeException e) {
      long delaySeconds = Math.min(60, 1L << Math.min(attempt, 6));
      LOG.warn("installing the shipped UI templates failed (attempt {}); retrying in {} s: {}", attempt,
          delaySeconds, e.toString());
      if (!retries.isShutdown()) {
        Future<?> unused = retries.schedule(() -> install(attempt + 1), delaySeconds, TimeUnit.SECONDS);
      }
    }
  }
}
