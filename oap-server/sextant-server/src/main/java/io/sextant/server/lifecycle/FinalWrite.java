package io.sextant.server.lifecycle;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.flush.Flusher;
import io.sextant.receiver.common.ReceiverMetrics;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The last steps of a stop, once no traffic comes in: say what was taken, write all of it. */
public final class FinalWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FinalWrite.class);

  private FinalWrite() {}

  /** The records each receiver accepted, e.g. {@code als=0, mesh=1200}: the port's /metrics is gone. */
  public static String acceptedByReceiver(MeterRegistry registry) {
    StringBuilder out = new StringBuilder();
    registry.find(ReceiverMetrics.RECORDS_ACCEPTED).counters().stream()
        .sorted(Comparator.comparing(c -> String.valueOf(c.getId().getTag("receiver"))))
        .forEach(c -> out.append(out.isEmpty() ? "" : ", ").append(c.getId().getTag("receiver")).append('=')
            .append((long) c.count()));
    return out.toString();
  }

  /**
   * Runs the flusher's final write on its own thread so that a store that hangs cannot hold the
   * stop past the timeout; what is left then is counted and logged. True when everything was written.
   */
  public static boolean run(Flusher flusher, Aggregator aggregator, Duration timeout) {
    CompletableFuture<Integer> left = CompletableFuture.supplyAsync(() -> flusher.close(timeout), runnable -> {
      Thread t = new Thread(runnable, "sextant-drain");
      t.setDaemon(true);
      t.start();
    });
    int unwritten;
    try {
      // A little beyond the flusher's own budget: it stops retrying at the timeout by itself.
      unwritten = left.get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      unwritten = -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unwritten = -1;
    } catch (ExecutionException e) {
      LOG.error("writing what was accepted failed", e.getCause());
      unwritten = -1;
    }
    if (unwritten == 0) {
      return true;
    }
    LOG.warn("drain timeout (server.drainTimeoutSeconds={}) reached: {} partial rows not written and {} "
        + "accumulators still open are lost{}", timeout.toSeconds(), Math.max(unwritten, flusher.pendingPartials()),
        aggregator.openAccumulators(), unwritten < 0 ? " (a storage write was still in progress)" : "");
    return false;
  }
}
