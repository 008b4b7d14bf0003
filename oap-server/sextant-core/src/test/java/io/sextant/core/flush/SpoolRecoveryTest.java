package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.spool.SpoolConfig;
import io.sextant.core.spool.SpoolPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collector killed at any point of its cycle loses nothing and counts nothing twice: the next
 * run over the same spool and the same store answers exactly the calls the dead run accepted, in
 * minutes, hours and days. Each run is a real aggregator and flusher; a "kill" abandons them
 * without a word (their spool files as a killed process leaves them, the run's locks released as
 * the OS releases a dead process's).
 */
class SpoolRecoveryTest {
  private static final long MINUTE = 60_000;
  private final MetricCatalog catalog = MetricFamilies.catalog(100);
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final FlakyStorage storage = new FlakyStorage();
  private final long now = System.currentTimeMillis();
  @TempDir
  Path spool;

  private final class Run {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Aggregator aggregator;
    final Flusher flusher;

    Run(long rollupIntervalMillis) {
      this(rollupIntervalMillis, 64L << 20);
    }

    Run(long rollupIntervalMillis, long maxSpoolBytes) {
      this(rollupIntervalMillis, maxSpoolBytes, 64L << 20);
    }

    Run(long rollupIntervalMillis, long maxSpoolBytes, long maxPendingBytes) {
      String writerId = Flusher.writerId("c");
      SpoolPorts ports = SpoolPorts.open(new SpoolConfig(spool, maxSpoolBytes, SpoolConfig.Fsync.INTERVAL, 50),
          writerId, catalog, registry);
      aggregator = new Aggregator(catalog, RecordKindDispatcher.standard(10_000), buckets,
          new AggregatorLimits(100_000, 60, 10), registry, ports.journal());
      flusher = new Flusher(aggregator, storage, buckets, new FlusherConfig(60_000, 60_000, rollupIntervalMillis, 1,
          maxPendingBytes), ports.cutLog(), writerId, registry);
    }

    void kill() {
      flusher.kill();
    }

    void calls(long time, int n) {
      calls(time, n, "b");
    }

    void calls(long time, int n, String service) {
      aggregator.batch(() -> {
        for (int i = 0; i < n; i++) {
          aggregator.offer(call(time, service));
        }
      });
    }

    /** An outage longer than the write queue holds: 40 services, a new version of each every cut. */
    void outageOverflowingMemory() {
      storage.down = true;
      for (int cut = 0; cut < 30; cut++) {
        for (int s = 0; s < 40; s++) {
          calls(now, 1, "s" + s);
        }
        flusher.flush(false);
      }
      assertThat(registry.get("sextant_spool_overflow_rows").gauge().value()).as("rows on disk").isPositive();
    }
  }

  @Test
  void rowsNotYetWrittenAndRecordsNotYetCollectedAreTakenOverExactly() {
    Run first = new Run(0);
    first.calls(now, 100);
    first.calls(now - 3 * MINUTE, 20); // a past minute: closes at the next collection
    first.flusher.flush(false);
    storage.down = true;
    first.calls(now, 50);
    first.calls(now - 3 * MINUTE, 3); // late: a new accumulator of a closed minute
    first.flusher.flush(false); // its write fails: the rows wait in memory, and in the spool
    first.calls(now, 25); // accepted, never collected
    first.kill();
    storage.down = false;

    Run second = new Run(0);
    second.flusher.start();
    second.flusher.close();
    assertTotals(175, 23);
    assertThat(second.registry.get("sextant_spool_replayed_records").counter().count()).isEqualTo(25);
    assertThat(spoolFiles()).as("a clean stop with everything written leaves no spool").isZero();
  }

  @Test
  void rowsWrittenBeforeTheKillAreNotCountedTwice() {
    Run first = new Run(60_000); // one checkpoint: recovery replays every cut after it
    for (int cut = 0; cut < 4; cut++) {
      first.calls(now, 10);
      first.calls(now - 3 * MINUTE, 1);
      first.flusher.flush(false);
    }
    first.calls(now, 7);
    first.kill();

    Run second = new Run(60_000);
    second.flusher.start();
    second.flusher.close();
    assertTotals(47, 4);
  }

  @Test
  void aCollectorKilledWhileTakingOverIsTakenOverInTurn() {
    Run first = new Run(0);
    first.calls(now, 30);
    storage.down = true;
    first.flusher.flush(false);
    first.calls(now, 4);
    first.kill();

    Run second = new Run(0);
    second.flusher.start(); // takes over the first run's rows and records, cannot write them
    second.calls(now, 6);
    second.flusher.flush(false);
    second.kill(); // the first run's directory is taken over again, with the second's
    storage.down = false;

    Run third = new Run(0);
    third.flusher.start();
    third.flusher.close();
    assertTotals(40, 0);
  }

  @Test
  void aLiveCollectorOnTheSameSpoolDirectoryIsNotTakenOver() {
    Run first = new Run(0);
    first.calls(now, 30);
    storage.down = true;
    first.flusher.flush(false); // rows waiting in memory and in the spool
    first.calls(now, 4); // accepted, not yet collected
    storage.down = false;

    Run second = new Run(0); // on the same directory while the first lives
    second.flusher.start();
    second.calls(now, 6);
    second.flusher.close();
    assertThat(second.registry.get("sextant_spool_replayed_records").counter().count()).isZero();
    assertTotals(6, 0);

    first.flusher.close(); // the first writes its own, once
    assertTotals(40, 0);
    assertThat(spoolFiles()).as("both stopped cleanly").isZero();
  }

  @Test
  void aTornLastFrameIsSkippedAndCountedAndTheRestRecovered() throws IOException {
    Path observations = runWith12CollectedAnd5UncollectedCalls();
    // A machine that stopped mid-write: half a frame header and some of its payload.
    Files.write(observations, new byte[] {0, 0, 1, 0, 7, 7, 7, 7, 1, 2, 3}, StandardOpenOption.APPEND);

    Run second = new Run(0);
    second.flusher.start();
    second.flusher.close();
    assertTotals(17, 0);
    assertThat(second.registry.get("sextant_spool_corrupt_files").counter().count()).isEqualTo(1);
  }

  @Test
  void observationsInOneFileForAllWritersAsEarlierBuildsWroteThemAreTakenOver() throws IOException {
    Path observations = runWith12CollectedAnd5UncollectedCalls();
    String name = observations.getFileName().toString();
    Files.move(observations, observations.resolveSibling(name.substring(0, name.lastIndexOf('-')) + ".log"));

    Run second = new Run(0);
    second.flusher.start();
    second.flusher.close();
    assertTotals(17, 0);
  }

  /** A run left with 12 calls in a cut and 5 only in its observation file, which it returns. */
  private Path runWith12CollectedAnd5UncollectedCalls() throws IOException {
    Run first = new Run(0);
    first.calls(now, 12);
    first.flusher.flush(false);
    first.calls(now, 5);
    first.kill();
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(p -> p.getFileName().toString().startsWith("obs-")).filter(p -> p.toFile().length() > 0)
          .findFirst().orElseThrow();
    }
  }

  @Test
  void recordsArrivingDuringCutsAreInExactlyOneOfThem() throws Exception {
    Run first = new Run(0);
    int threads = 3;
    int batches = 1000;
    Thread[] senders = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      senders[t] = new Thread(() -> {
        for (int b = 0; b < batches; b++) {
          first.calls(now, 50);
        }
      });
      senders[t].start();
    }
    int cuts = 0;
    while (cuts < 20 || Stream.of(senders).anyMatch(Thread::isAlive)) {
      storage.down = cuts++ % 3 == 1; // some cuts written, some waiting
      first.flusher.flush(false);
    }
    first.kill();
    storage.down = false;

    Run second = new Run(0);
    second.flusher.start();
    second.flusher.close();
    assertTotals(threads * batches * 50L, 0);
  }

  @Test
  void whileStorageTakesWritesTheSpoolHoldsOnlyTheLastCutsAndWhileItIsDownItStaysInItsBound() {
    Run run = new Run(0, 64 << 10);
    for (int cut = 0; cut < 20; cut++) {
      run.calls(now, 100);
      run.flusher.flush(false);
    }
    assertThat(spoolFiles()).as("the writer and lock files and the last cut (an epoch has files once records "
        + "arrive)").isEqualTo(3);
    run.calls(now, 1);
    assertThat(spoolFiles()).as("and the file of the thread that spooled a record").isEqualTo(4);

    storage.down = true;
    for (int cut = 0; cut < 200; cut++) {
      run.calls(now - cut * MINUTE / 10, 100); // new minutes: every cut holds new snapshots
      run.flusher.flush(false);
    }
    assertThat(run.registry.get("sextant_spool_dropped_bytes").counter().count()).isPositive();
    assertThat(run.registry.get("sextant_spool_bytes").gauge().value()).isLessThan(64 << 10);
    storage.down = false;
    run.flusher.close();
  }

  @Test
  void aSpoolThatCannotBeWrittenStopsSpoolingAndLosesNothingInMemory() throws IOException {
    Run run = new Run(0);
    run.calls(now, 10);
    run.flusher.flush(false);
    try (Stream<Path> files = Files.walk(spool)) { // the disk goes away under the collector
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    run.calls(now, 20);
    run.flusher.flush(false);
    run.calls(now, 5);
    run.flusher.close();
    assertTotals(35, 0);
    assertThat(run.registry.get("sextant_spool_stopped").counter().count()).isEqualTo(1);
  }

  @Test
  void anOutageLongerThanTheWriteQueueHoldsLosesNothingWhileTheCollectorLives() {
    Run run = new Run(0, 64L << 20, 16 << 10);
    run.outageOverflowingMemory();
    storage.down = false;
    run.flusher.close();
    assertThat(run.registry.get("sextant_flush_partials_dropped").counter().count()).isZero();
    assertThat(servicesCalls(Step.MINUTE)).isEqualTo(40 * 30);
    assertThat(servicesCalls(Step.HOUR)).isEqualTo(40 * 30);
    assertThat(spoolFiles()).as("a clean stop with everything written leaves no spool").isZero();
  }

  @Test
  void aCollectorKilledWithRowsInItsOverflowIsTakenOverExactly() {
    Run first = new Run(0, 64L << 20, 16 << 10);
    first.outageOverflowingMemory();
    first.calls(now, 3, "s0"); // accepted, never collected
    first.kill();
    storage.down = false;

    Run second = new Run(0);
    second.flusher.start();
    second.flusher.close();
    assertThat(servicesCalls(Step.MINUTE)).isEqualTo(40 * 30 + 3);
    assertThat(servicesCalls(Step.HOUR)).isEqualTo(40 * 30 + 3);
  }

  /** Calls of the services s0..s39 in this minute, or in its hour. */
  private long servicesCalls(Step step) {
    long minute = buckets.minuteBucket(now);
    long bucket = step == Step.MINUTE ? minute : TimeBuckets.rollup(minute, step);
    List<String> ids = IntStream.range(0, 40).mapToObj(s -> EntityIds.serviceId("s" + s, true)).toList();
    return storage.delegate.metrics().read("service_cpm", ids, step, bucket, bucket).stream()
        .mapToLong(p -> p.values()[0]).sum();
  }

  /** Calls of service b: {@code current} in this minute, {@code past} in the minute three before. */
  private void assertTotals(long current, long past) {
    long minute = buckets.minuteBucket(now);
    long pastMinute = buckets.minuteBucket(now - 3 * MINUTE);
    assertThat(calls(Step.MINUTE, minute, minute)).as("this minute").isEqualTo(current);
    assertThat(calls(Step.MINUTE, pastMinute, pastMinute)).as("the past minute").isEqualTo(past);
    long total = current + past;
    if (TimeBuckets.rollup(minute, Step.HOUR) == TimeBuckets.rollup(pastMinute, Step.HOUR)) {
      assertThat(calls(Step.HOUR, TimeBuckets.rollup(minute, Step.HOUR), TimeBuckets.rollup(minute, Step.HOUR)))
          .as("the hour").isEqualTo(total);
    }
    if (TimeBuckets.rollup(minute, Step.DAY) == TimeBuckets.rollup(pastMinute, Step.DAY)) {
      assertThat(calls(Step.DAY, TimeBuckets.rollup(minute, Step.DAY), TimeBuckets.rollup(minute, Step.DAY)))
          .as("the day").isEqualTo(total);
    }
  }

  private long calls(Step step, long from, long to) {
    return storage.delegate.metrics().read("service_cpm", null, step, from, to).stream()
        .mapToLong(p -> p.values()[0]).sum();
  }

  private long spoolFiles() {
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(Files::isRegularFile).count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static CallRecord call(long time) {
    return call(time, "b");
  }

  private static CallRecord call(long time, String service) {
    return new CallRecord(time, time + 10, "a", "a-0", service, service + "-0", "GET:/x", 10, 200, true,
        CallProtocol.HTTP,
        DetectPoint.SERVER, "", "", 100, 100, Layer.MESH, Map.of(), Map.of());
  }
}
