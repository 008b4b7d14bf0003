package io.sextant.query.graphql;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * One request's way onto the shared expression pool: at most {@code width} of its fields on the
 * pool at once, the rest waiting in the request's own queue. So a request of hundreds of
 * expressions cannot queue ahead of every other request: a small one waits for at most the tasks
 * running, not for the big one's backlog.
 */
final class Lane implements Executor {
  private final Executor pool;
  private final int width;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int running;

  Lane(Executor pool, int width) {
    this.pool = pool;
    this.width = Math.max(1, width);
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      if (running >= width) {
        waiting.add(task);
        return;
      }
      running++;
    }
    submit(task);
  }

  private void submit(Runnable task) {
    try {
      pool.execute(() -> {
        try {
          task.run();
        } finally {
          next();
        }
      });
    } catch (RuntimeException refused) { // the pool is shut down or full: give the slot back
      next();
      throw refused;
    }
  }

  private void next() {
    Runnable task;
    synchronized (this) {
      task = waiting.poll();
      if (task == null) {
        running--;
        return;
      }
    }
    submit(task);
  }
}
