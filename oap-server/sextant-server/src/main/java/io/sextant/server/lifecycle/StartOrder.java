package io.sextant.server.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The components a start started, in the order it started them; {@link #stopAll()} stops them in
 * reverse, so that each stops before what it runs on. One that fails to stop is logged and the
 * rest still stop.
 */
public final class StartOrder {
  private static final Logger LOG = LoggerFactory.getLogger(StartOrder.class);

  private record Started(String name, Runnable stop) {}

  private final List<Started> started = new ArrayList<>();

  /** Starts a component with {@code start}, and remembers to stop it with {@code stop}. */
  public synchronized void start(String name, Runnable start, Runnable stop) {
    start.run();
    started.add(new Started(name, stop));
  }

  /**
   * A scheduler on a thread of its own named {@code sextant-<name>}, started now and shut down in
   * its turn (what it runs is interrupted).
   */
  public ScheduledExecutorService scheduler(String name) {
    ScheduledExecutorService s =
        Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-" + name));
    start(name, () -> {}, s::shutdownNow);
    return s;
  }

  /** Stops what was started, the last started first; each once. */
  public synchronized void stopAll() {
    for (int i = started.size() - 1; i >= 0; i--) {
      Started s = started.get(i);
      try {
        s.stop().run();
      } catch (RuntimeException e) {
        LOG.warn("stopping {} failed; stopping the rest", s.name(), e);
      }
    }
    started.clear();
  }
}
