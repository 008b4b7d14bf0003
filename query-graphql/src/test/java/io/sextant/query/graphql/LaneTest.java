package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A request's lane keeps its backlog to itself: a small request behind a big one waits for little. */
class LaneTest {
  private static Runnable sleep(int millis, CountDownLatch done, AtomicInteger concurrent, AtomicInteger peak) {
    return () -> {
      peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
      try {
        Thread.sleep(millis); // a field that takes this long: the simulated work is time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        concurrent.decrementAndGet();
        done.countDown();
      }
    };
  }

  @Test
  void aSmallRequestIsNotQueuedBehindABigOnesBacklog() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Lane big = new Lane(pool, 4);
      Lane small = new Lane(pool, 4);
      CountDownLatch bigDone = new CountDownLatch(200);
      CountDownLatch smallDone = new CountDownLatch(4);
      AtomicInteger bigConcurrent = new AtomicInteger();
      AtomicInteger bigPeak = new AtomicInteger();
      for (int i = 0; i < 200; i++) {
        big.execute(sleep(20, bigDone, bigConcurrent, bigPeak)); // 1 s of work on 4 threads
      }
      long started = System.nanoTime();
      for (int i = 0; i < 4; i++) {
        small.execute(sleep(20, smallDone, new AtomicInteger(), new AtomicInteger()));
      }
      assertThat(smallDone.await(5, TimeUnit.SECONDS)).isTrue();
      long smallMillis = (System.nanoTime() - started) / 1_000_000;
      // Through the pool's own queue it would wait for all 200 (1 s); through lanes, for a few.
      assertThat(smallMillis).isLessThan(400);
      assertThat(bigDone.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(bigPeak.get()).isLessThanOrEqualTo(4);
    } finally {
      pool.shutdownNow();
    }
  }
}
