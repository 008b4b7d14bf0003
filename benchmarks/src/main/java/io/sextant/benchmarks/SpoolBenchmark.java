package io.sextant.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.flush.CutLog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.spool.ObservationCodec;
import io.sextant.core.spool.Out;
import io.sextant.core.spool.SpoolConfig;
import io.sextant.core.spool.SpoolPorts;
import io.sextant.core.spool.StringTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the write-ahead spool adds to the aggregator's hot path: records offered ten to a batch (a
 * gRPC message of the bookinfo load), with {@code spool=off} and with a spool on disk ({@code
 * interval} fsync, the default), on one and two threads. Each iteration ends with a cut, as the
 * flusher makes one every flush, so the observation files do not grow without end. Throughput is
 * records per second. The spool directory is under {@code java.io.tmpdir} (set it to the disk the
 * collector would use).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SpoolBenchmark {
  private static final int BATCH = 10;

  @Param({"off", "interval"})
  public String spool;

  @Param({"bookinfo"})
  public String shape;

  private Aggregator aggregator;
  private SpoolPorts ports = SpoolPorts.NONE;
  private Path directory;
  private CallRecord[] records;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    if (!spool.equals("off")) {
      directory = Files.createTempDirectory("sextant-spool-bench");
      ports = SpoolPorts.open(new SpoolConfig(directory, 1L << 40, SpoolConfig.Fsync.valueOf(spool.toUpperCase()),
          1000), "bench", MetricFamilies.catalog(500), new SimpleMeterRegistry());
    }
    aggregator = AggregatorBenchmark.newAggregator("2000", ports.journal());
    long now = System.currentTimeMillis();
    records = CallRecords.build(CallRecords.topology(shape), AggregatorBenchmark.RECORDS, now, 7);
    for (CallRecord r : records) {
      aggregator.offer(r);
    }
    cut();
  }

  /** A collection, and with a spool the cut that ends its epoch and deletes its observations. */
  @TearDown(Level.Iteration)
  public void cut() {
    List<Snapshot> snapshots = aggregator.collect(Long.MIN_VALUE, false);
    ports.cutLog().cut(new CutLog.CutParams(Long.MIN_VALUE, false, false), snapshots,
        () -> new CutLog.Checkpoint(0, List.of(), List.of()));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    ports.cutLog().close(true);
  }

  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH)
  public void batchOf10(AggregatorBenchmark.Cursor cursor) {
    offerBatch(cursor);
  }

  @Benchmark
  @Threads(2)
  @OperationsPerInvocation(BATCH)
  public void batchOf10TwoThreads(AggregatorBenchmark.Cursor cursor) {
    offerBatch(cursor);
  }

  /** The encoding alone: a batch of records into a buffer, as a spooling thread writes them. */
  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH)
  public int encodeBatchOf10(Encoder encoder) {
    encoder.out.reset();
    for (int i = 0; i < BATCH; i++) {
      ObservationCodec.write(encoder.out, records[encoder.next++ & (AggregatorBenchmark.RECORDS - 1)], false,
          encoder.names);
    }
    return encoder.out.size();
  }

  /** One thread's encoding state. */
  @State(Scope.Thread)
  public static class Encoder {
    final Out out = new Out(16 << 10);
    final StringTable names = new StringTable();
    int next;
  }

  private void offerBatch(AggregatorBenchmark.Cursor cursor) {
    aggregator.batch(() -> {
      for (int i = 0; i < BATCH; i++) {
        aggregator.offer(records[cursor.next++ & (AggregatorBenchmark.RECORDS - 1)]);
      }
    });
  }
}
