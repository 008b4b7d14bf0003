package io.sextant.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.aggregate.Journal;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.dispatch.ChildBudgets;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The aggregator's hot path, {@link Aggregator#offer}, in steady state (every entity already
 * has its accumulator) for a bookinfo-sized mesh and for 200 services with 5000 endpoints, on one
 * and two threads; and, in {@link Flush}, the cost of one flush of the 5000-endpoint case.
 *
 * <p>Shapes are {@code bookinfo} or {@code <services>x<endpoints>}; try e.g. {@code -p
 * shape=1000x100000}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class AggregatorBenchmark {
  /** Records cycled through; a power of two. */
  static final int RECORDS = 1 << 16;

  @Param({"bookinfo", "200x5000"})
  public String shape;

  /** Endpoints and instances per service before they fold (core.max*PerService); "none": no budget. */
  @Param({"2000"})
  public String childBudget;

  private Aggregator aggregator;
  private CallRecord[] records;

  static Aggregator newAggregator() {
    return newAggregator("2000");
  }

  static Aggregator newAggregator(String childBudget) {
    return newAggregator(childBudget, Journal.NONE);
  }

  static Aggregator newAggregator(String childBudget, Journal journal) {
    ChildBudgets budgets = childBudget.equals("none") ? ChildBudgets.unlimited()
        : new ChildBudgets(Integer.parseInt(childBudget), Integer.parseInt(childBudget), new SimpleMeterRegistry());
    return new Aggregator(MetricFamilies.catalog(500), RecordKindDispatcher.standard(1_000_000, budgets),
        new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC()), new AggregatorLimits(10_000_000, 1440, 10),
        new SimpleMeterRegistry(), journal);
  }

  @Setup(Level.Trial)
  public void setUp() {
    aggregator = newAggregator(childBudget);
    records = CallRecords.build(CallRecords.topology(shape), RECORDS, System.currentTimeMillis(), 7);
    for (CallRecord r : records) {
      if (aggregator.offer(r) != Admission.ACCEPTED) {
        throw new IllegalStateException("the aggregator refused a benchmark record: " + r);
      }
    }
  }

  /** Each thread walks the records from its own offset. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    @Setup(Level.Trial)
    public void setUp(ThreadParams thread) {
      next = thread.getThreadIndex() * (RECORDS / 2 + 101);
    }
  }

  @Benchmark
  @Threads(1)
  public Admission offer(Cursor cursor) {
    return aggregator.offer(records[cursor.next++ & (RECORDS - 1)]);
  }

  @Benchmark
  @Threads(2)
  public Admission offerCallTwoThreads(Cursor cursor) {
    return aggregator.offer(records[cursor.next++ & (RECORDS - 1)]);
  }

  /**
   * One flush after a burst of records touched (nearly) every accumulator: {@code collect} plus
   * turning snapshots into metric partials as the flusher does ({@code collectAndConvert}), and the
   * real {@link Flusher#flush} into the memory store, metadata and edges included.
   */
  @State(Scope.Benchmark)
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2, time = 2)
  @Measurement(iterations = 3, time = 3)
  @Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
  public static class Flush {
    @Param({"200x5000"})
    public String flushShape;

    private MeshTopology topology;
    private TimeBuckets buckets;
    private Aggregator aggregator;
    private Flusher flusher;
    private CallRecord[] records;
    private long recordsMinute;

    @Setup(Level.Trial)
    public void setUp() {
      topology = CallRecords.topology(flushShape);
      buckets = new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC());
      aggregator = newAggregator();
      flusher = new Flusher(aggregator, new MemoryStorage(new MemoryStorageConfig(5_000_000)), buckets,
          new FlusherConfig(1000, 1000, 10_000, 1, 256L << 20), "bench", new SimpleMeterRegistry());
      buildRecords();
      touchAll();
      System.out.printf("%n[flush state: %s; %,d open accumulators]%n", topology.describe(),
          aggregator.openAccumulators());
    }

    private void buildRecords() {
      long now = System.currentTimeMillis();
      records = CallRecords.build(topology, RECORDS, now, 11);
      recordsMinute = buckets.minuteBucket(now);
    }

    /** Makes every accumulator dirty again; keeps records in the current minute. */
    @Setup(Level.Invocation)
    public void touchAll() {
      if (buckets.currentMinuteBucket() != recordsMinute) {
        buildRecords();
      }
      for (CallRecord r : records) {
        aggregator.offer(r);
      }
    }

    @Benchmark
    public List<PartialRow> collectAndConvert() {
      List<Snapshot> snapshots = aggregator.collect(Long.MIN_VALUE, false);
      List<PartialRow> rows = new ArrayList<>(snapshots.size());
      for (Snapshot s : snapshots) {
        // Snapshots carry states already encoded (sketch bytes taken under the accumulator's lock).
        rows.add(Flusher.row(s.group(), s.entity().id(), Step.MINUTE, s.minuteBucket(), "bench", s.sequence(),
            s.states()));
      }
      return rows;
    }

    @Benchmark
    public void flusherFlush() {
      flusher.flush(false);
    }
  }
}
