package io.sextant.server.assembly;

import io.sextant.core.query.QueryServices;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the shipped dashboards. The first attempt runs at start, so a started server serves them;
 * if storage is not ready yet (Elasticsearch may be briefly unavailable), retries in the background
 * with backoff up to a minute apart, logging each failure, instead of failing start.
 */
final class ShippedTemplates {
  private static final Logger LOG = LoggerFactory.getLogger(ShippedTemplates.class);

  private final QueryServices query;
  private final ScheduledExecutorService retries;

  ShippedTemplates(QueryServices query, ScheduledExecutorService retries) {
    this.query = query;
    this.retries = retries;
  }

  void install() {
    install(1);
  }

  private void install(int attempt) {
    try {
      LOG.info("shipped UI templates: {}", query.templates().loadShipped());
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
