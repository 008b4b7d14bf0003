package io.sextant.receiver.ebpf.profiling;

import static io.sextant.receiver.ebpf.RoverArbitraries.offTheWire;
import static io.sextant.receiver.ebpf.RoverArbitraries.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.ebpf.ProfilingSchedule;
import io.sextant.api.ebpf.StackBatch;
import io.sextant.api.ebpf.StackBatches;
import io.sextant.receiver.common.Rejection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFOffCPUProfiling;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFOnCPUProfiling;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingData;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingStackMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.v3.EBPFProfilingTaskMetadata;

/**
 * Fuzzing the intake of Rover's profiling data (jqwik): streams of {@code EBPFProfilingData} (task
 * metadata or none, on- or off-CPU samples or none, stacks of any type with any symbols, counts and
 * durations), as they come off the wire, also with bytes changed, are taken or refused with a {@link
 * Rejection} message by message, never an exception, under the default and the smallest limits; each
 * batch handed over keeps within the limits and reads back from its stored form as it was. A longer
 * run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class ProfilingIntakeProperties {
  @Property
  void everyMessageIsTakenOrRefused(@ForAll("streams") List<EBPFProfilingData> stream, @ForAll boolean smallest) {
    ProfilingConfig limits = smallest ? new ProfilingConfig(1, 1, 16, 1, 0) : new ProfilingConfig(4, 1024, 4096, 2000,
        1000);
    List<StackBatch> batches = new ArrayList<>();
    ProfilingIntake intake = new ProfilingIntake(limits, "stream-1", new ProfilingIntake.Output() {
      @Override
      public void schedule(ProfilingSchedule schedule) {
        assertThat(schedule.scheduleId()).hasSize(64);
      }

      @Override
      public void batch(String recordId, ProfilingSchedule schedule, long uploadTime, StackBatch batch) {
        batches.add(batch);
      }
    });
    for (EBPFProfilingData message : stream) {
      Rejection refused = intake.accept(message);
      Statistics.collect(refused == null ? "taken" : refused.reason());
    }
    intake.flush();
    for (StackBatch b : batches) {
      assertThat(b.samples()).isNotEmpty().hasSizeLessThanOrEqualTo(limits.samplesPerBatch());
      assertThat(b.symbols()).allSatisfy(s -> assertThat(s.length()).isLessThanOrEqualTo(limits.maxSymbolLength()));
      assertThat(stacks(StackBatches.decode(StackBatches.encode(b)))).isEqualTo(stacks(b));
    }
  }

  /** A batch's samples with their symbols named, comparable. */
  private static List<String> stacks(StackBatch b) {
    return b.samples().stream().map(s -> b.targetType() + " " + s.count() + " " + s.durationNanos() + " "
        + Arrays.stream(s.kernelSymbols()).mapToObj(b.symbols()::get).toList() + " "
        + Arrays.stream(s.userSymbols()).mapToObj(b.symbols()::get).toList()).toList();
  }

  @Provide
  Arbitrary<List<EBPFProfilingData>> streams() {
    Arbitrary<String> id = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.of("task-1", "task-2", "process-1")),
        Tuple.of(1, text()));
    Arbitrary<Long> time = Arbitraries.oneOf(Arbitraries.of(0L, 1_790_000_000_000L), Arbitraries.longs());
    Arbitrary<EBPFProfilingTaskMetadata> task = Combinators.combine(id, id, time, time).as((t, p, start, now) ->
        EBPFProfilingTaskMetadata.newBuilder().setTaskId(t).setProcessId(p).setProfilingStartTime(start)
            .setCurrentTime(now).build());
    Arbitrary<Integer> stackType = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.of(0, 1)),
        Tuple.of(1, Arbitraries.integers().between(-1, 3)));
    Arbitrary<EBPFProfilingStackMetadata> stack = Combinators.combine(stackType,
        Arbitraries.integers(), text().list().ofMaxSize(4)).as((type, stackId, symbols) ->
            EBPFProfilingStackMetadata.newBuilder().setStackTypeValue(type).setStackId(stackId)
                .addAllStackSymbols(symbols).build());
    Arbitrary<List<EBPFProfilingStackMetadata>> stacks = stack.list().ofMaxSize(3);
    Arbitrary<Integer> count = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.integers()),
        Tuple.of(4, Arbitraries.integers().between(0, 9)));
    Arbitrary<EBPFProfilingData> onCpu = Combinators.combine(stacks, count).as((s, n) -> EBPFProfilingData
        .newBuilder().setOnCPU(EBPFOnCPUProfiling.newBuilder().addAllStacks(s).setDumpCount(n)).build());
    Arbitrary<Long> nanos = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.longs()),
        Tuple.of(4, Arbitraries.longs().between(0, 1_000_000_000)));
    Arbitrary<EBPFProfilingData> offCpu = Combinators.combine(stacks, count, nanos)
        .as((s, n, d) -> EBPFProfilingData.newBuilder().setOffCPU(EBPFOffCPUProfiling.newBuilder().addAllStacks(s)
            .setSwitchCount(n).setDuration(d)).build());
    Arbitrary<EBPFProfilingData> message = Combinators.combine(task.injectNull(0.5), Arbitraries.frequencyOf(
        Tuple.of(4, onCpu), Tuple.of(4, offCpu), Tuple.of(1, Arbitraries.just(EBPFProfilingData.getDefaultInstance()))))
        .as((t, m) -> t == null ? m : m.toBuilder().setTask(t).build());
    return offTheWire(message, EBPFProfilingData.parser()).list().ofMaxSize(8);
  }
}
