package io.sextant.testkit.poll;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * Waits for a condition instead of sleeping a fixed time: checks it every {@value #INTERVAL_MILLIS}
 * ms until it holds or {@code timeout} passes, then fails naming what was awaited and the last value
 * seen. A test waits exactly as long as the system under test needs, and a slow machine fails
 * with a reason instead of flaking.
 */
public final class Poll {
  static final long INTERVAL_MILLIS = 50;

  private Poll() {}

  /** A check that may throw (an HTTP read, a gRPC call). */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /** Returns once {@code condition} holds; fails after {@code timeout}. */
  public static void until(String what, Duration timeout, Condition condition) throws Exception {
    until(what, timeout, condition::holds, held -> held);
  }

  /**
   * Reads {@code read} until {@code done} accepts the value, and returns that value; fails after
   * {@code timeout} with the last value read.
   */
  public static <T> T until(String what, Duration timeout, Callable<T> read, Predicate<? super T> done)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      T value = read.call();
      if (done.test(value)) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not " + what + " within " + timeout.toMillis() + " ms; last seen: " + value);
      }
      Thread.sleep(INTERVAL_MILLIS);
    }
  }
}
