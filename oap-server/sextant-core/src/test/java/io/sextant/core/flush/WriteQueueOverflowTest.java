package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.core.spool.Spool;
import io.sextant.core.spool.SpoolConfig;
import io.sextant.core.topology.EntityRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a spool, rows past the write queue's bound wait on disk instead of being dropped, and every
 * version of a row reaches storage in the order it was made, also when a batch fails after newer
 * versions of its rows went to disk.
 */
class WriteQueueOverflowTest {
  private static final long BUCKET = 202611270900L;
  @TempDir
  Path dir;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final EntityRegistry entities = new EntityRegistry(1000);

  private static PartialRow row(String entity, long calls) {
    return new PartialRow("CALL_SERVICE", entity, Step.MINUTE, BUCKET, "c@1", 1,
        List.of(new PartialRow.Cell("service_cpm", new long[] {calls, 0, 0}, null)));
  }

  private static List<PartialRow> rows(String prefix, int n, long calls) {
    return IntStream.range(0, n).mapToObj(i -> row(prefix + i, calls)).toList();
  }

  private long stored(FlakyStorage storage, String entity) {
    return storage.delegate.metrics().read("service_cpm", List.of(entity), Step.MINUTE, BUCKET, BUCKET).stream()
        .mapToLong(p -> p.values()[0]).sum();
  }

  @Test
  void anOutageLongerThanMemoryHoldsLosesNoRow() {
    FlakyStorage storage = new FlakyStorage();
    try (Spool spool = new Spool(new SpoolConfig(dir, 64 << 20, SpoolConfig.Fsync.NEVER, 1000), "c@1", registry)) {
      WriteQueue queue = new WriteQueue(storage, 32 << 10, 1000, spool.overflow(), registry);
      storage.down = true;
      for (int round = 1; round <= 20; round++) { // each round a newer version of every row
        queue.queue(rows("s", 500, round), List.of(), entities);
        queue.write();
      }
      assertThat(spool.overflow().rows()).as("rows on disk during the outage").isPositive();
      assertThat(queue.fillRatio()).as("how full, for readiness: the spool, which has room").isLessThan(0.1);
      storage.down = false;
      queue.write();
      assertThat(queue.count()).isZero();
      assertThat(IntStream.range(0, 500).mapToLong(i -> stored(storage, "s" + i)).sum()).isEqualTo(500 * 20);
      assertThat(registry.get("sextant_flush_partials_dropped").counter().count()).isZero();
    }
  }

  @Test
  void withoutASpoolTheSameOutageDropsTheOldestRows() {
    FlakyStorage storage = new FlakyStorage();
    WriteQueue queue = new WriteQueue(storage, 32 << 10, 1000, registry);
    storage.down = true;
    queue.queue(rows("s", 500, 1), List.of(), entities);
    queue.write();
    storage.down = false;
    queue.write();
    assertThat(registry.get("sextant_flush_partials_dropped").counter().count()).isPositive();
  }

  @Test
  void aBatchFailingAfterNewerVersionsWentToDiskIsWrittenBeforeThem() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FlakyStorage storage = new FlakyStorage() {
      @Override
      void beforeWrite() {
        writing.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (Spool spool = new Spool(new SpoolConfig(dir, 64 << 20, SpoolConfig.Fsync.NEVER, 1000), "c@1", registry)) {
      WriteQueue queue = new WriteQueue(storage, 32 << 10, 1000, spool.overflow(), registry);
      queue.queue(List.of(row("a", 1), row("only-in-batch", 7)), List.of(), entities);
      CompletableFuture<Void> first = CompletableFuture.runAsync(queue::write); // holds version 1 in flight
      assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
      // Version 2, then enough rows to push it (the oldest waiting) to disk.
      queue.queue(List.of(row("a", 2)), List.of(), entities);
      queue.queue(rows("f", 200, 1), List.of(), entities);
      assertThat(spool.overflow().isEmpty()).isFalse();
      storage.down = true; // version 1's write fails
      release.countDown();
      first.get(10, TimeUnit.SECONDS);
      storage.down = false;
      queue.write();
      assertThat(stored(storage, "a")).as("the newest version is the one stored").isEqualTo(2);
      assertThat(stored(storage, "only-in-batch")).as("a row of the failed batch alone is kept").isEqualTo(7);
      assertThat(registry.get("sextant_flush_partials_dropped").counter().count()).isZero();
    }
  }
}
