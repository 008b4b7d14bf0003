package io.sextant.testkit.poll;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * Waits for a condition instead of sleeping a fixed time: checks it every {@value #INTERVAL_MILLIS}
 * ms until it holds or {@code timeout} passes, then fails naming what was awaited and the last value
 * seen. A test waits exactly as long as the system under test needs, and a slow machine fails
 * with a reason instead of flaking.
 *
 * <p>{@link #stays} is the other half: a test whose point is that nothing (more) happens for a while
 * checks that throughout the while, and fails at the first moment it does not hold.
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

  /**
   * Checks {@code condition} every {@value #INTERVAL_MILLIS} ms for {@code duration} and fails at once
   * when it does not hold: for a test that proves nothing (more) happens in that time, such as a
   * duplicate delivery or a reply that must wait for something else.
   */
  public static void stays(String what, Duration duration, Condition condition) throws Exception {
    long end = System.nanoTime() + duration.toNanos();
    while (true) {
      if (!condition.holds()) {
        throw new AssertionError("not " + what + " throughout " + duration.toMillis() + " ms");
      }
      long left = end - System.nanoTime();
      if (left <= 0) {
        return;
      }
      Thread.sleep(Math.min(INTERVAL_MILLIS, Math.max(1, left / 1_000_000)));
    }
  }
}
