package io.sextant.benchmarks;

import io.sextant.api.ebpf.ProfilingSchedule;
import io.sextant.api.ebpf.ProfilingSchedules;
import io.sextant.api.ebpf.StackBatch;
import io.sextant.api.ebpf.StackBatches;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.StoredRecord;
import io.sextant.core.profiling.FlameGraph;
import io.sextant.core.profiling.ProfilingAnalysis;
import io.sextant.receiver.ebpf.profiling.ProfilingConfig;
import io.sextant.receiver.ebpf.profiling.ProfilingIntake;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFOnCPUProfiling;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackType;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * eBPF profiling: {@code analyze} folds {@value #SAMPLES} stack samples (Rover-like: 2,000 distinct
 * stacks of 10-40 frames over 600 symbols, kernel and user space, 20 uploads) from their stored
 * records into flame-graph trees, as {@code analysisEBPFProfilingResult} does (SampleTime: JMH prints
 * p0.50/p0.95/p0.99; samples/s = {@value #SAMPLES} / mean). {@code ingest} runs the receiver's path
 * for the same messages: check, batch and encode to records (Throughput, one op = one sample).
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class ProfilingBenchmark {
  static final int SAMPLES = 100_000;
  private static final int UPLOADS = 20;

  private List<EBPFProfilingData> messages;
  private RecordStore store;
  private ProfilingAnalysis analysis;
  private final ProfilingConfig limits = new ProfilingConfig(4, 1024, 4096, 2000, 1000);

  @Setup
  public void setup() {
    Random random = new Random(42);
    List<String> symbols = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      symbols.add("io.example.service.Module" + (i % 40) + ".method" + i + "(Ljava/lang/String;)V");
    }
    List<List<String>> users = new ArrayList<>();
    List<List<String>> kernels = new ArrayList<>();
    for (int s = 0; s < 2000; s++) {
      List<String> user = new ArrayList<>();
      int depth = 10 + random.nextInt(30);
      for (int d = 0; d < depth; d++) {
        user.add(symbols.get(d < 5 ? d : random.nextInt(symbols.size())));
      }
      users.add(user);
      kernels.add(random.nextBoolean() ? List.of("do_syscall_64", "entry_SYSCALL_64") : List.of());
    }
    messages = new ArrayList<>(SAMPLES);
    long start = 1_700_000_000_000L;
    for (int i = 0; i < SAMPLES; i++) {
      int upload = i / (SAMPLES / UPLOADS);
      EBPFProfilingData.Builder m = EBPFProfilingData.newBuilder();
      if (i % (SAMPLES / UPLOADS) == 0) {
        m.setTask(EBPFProfilingTaskMetadata.newBuilder().setTaskId("task").setProcessId("process")
            .setProfilingStartTime(start).setCurrentTime(start + upload * 5_000L));
      }
      int s = random.nextInt(users.size());
      EBPFOnCPUProfiling.Builder cpu = EBPFOnCPUProfiling.newBuilder().setDumpCount(1 + random.nextInt(5))
          .addStacks(EBPFProfilingStackMetadata.newBuilder().setStackType(EBPFProfilingStackType.PROCESS_USER_SPACE)
              .setStackId(s).addAllStackSymbols(users.get(s)));
      if (!kernels.get(s).isEmpty()) {
        cpu.addStacks(EBPFProfilingStackMetadata.newBuilder().setStackType(EBPFProfilingStackType.PROCESS_KERNEL_SPACE)
            .setStackId(s).addAllStackSymbols(kernels.get(s)));
      }
      messages.add(m.setOnCPU(cpu).build());
    }
    List<StoredRecord> records = ingest();
    store = new ListRecordStore(records);
    analysis = new ProfilingAnalysis(() -> store, ProfilingAnalysis.DEFAULT_MAX_RECORDS);
    FlameGraph g = analyze();
    if (g.trees().isEmpty()) {
      throw new IllegalStateException("no trees");
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public FlameGraph analyze() {
    return analysis.analyze(List.of(scheduleId()), List.of(new ProfilingAnalysis.TimeRange(0, Long.MAX_VALUE - 1)),
        ProfilingAnalysis.AggregateType.COUNT);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(SAMPLES)
  public List<StoredRecord> ingest() {
    List<StoredRecord> out = new ArrayList<>();
    ProfilingIntake intake = new ProfilingIntake(limits, "bench", new ProfilingIntake.Output() {
      @Override
      public void schedule(ProfilingSchedule schedule) {}

      @Override
      public void batch(String recordId, ProfilingSchedule schedule, long uploadTime, StackBatch batch) {
        out.add(StackBatches.toRecord(recordId, schedule.scheduleId(), uploadTime, batch));
      }
    });
    for (EBPFProfilingData m : messages) {
      if (intake.accept(m) != null) {
        throw new IllegalStateException("refused");
      }
    }
    intake.flush();
    return out;
  }

  private static String scheduleId() {
    return ProfilingSchedules.scheduleId("task", "process", 1_700_000_000_000L);
  }

  /** The records in a list, answered newest first as stores do; the benchmark measures the fold, not a store. */
  private record ListRecordStore(List<StoredRecord> records) implements RecordStore {
    @Override
    public void write(List<StoredRecord> more) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<StoredRecord> read(RecordQuery q) {
      return records.stream().filter(r -> r.kind().equals(q.kind()) && q.entityIds().contains(r.entityId())
          && r.timeMillis() >= q.startMillis() && r.timeMillis() <= q.endMillis())
          .sorted(Comparator.comparingLong(StoredRecord::timeMillis).reversed()).limit(q.limit()).toList();
    }
  }
}
