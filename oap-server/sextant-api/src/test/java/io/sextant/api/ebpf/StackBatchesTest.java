package io.sextant.api.ebpf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.storage.StoredRecord;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StackBatchesTest {
  @Test
  void aBatchComesBackAsItWentInWithEachSymbolStoredOnce() {
    StackBatch.Builder b = new StackBatch.Builder(ProfilingTask.OFF_CPU);
    b.add(7, 1_500_000_000L, List.of("schedule", "do_syscall_64"), List.of("read", "main"));
    b.add(300, 0, List.of(), List.of("sleep", "main", "λ-Ünïcode"));
    StackBatch batch = b.build();
    StoredRecord r = StackBatches.toRecord("s-0", "schedule-1", 42L, batch);
    assertThat(r.kind()).isEqualTo(StackBatches.KIND);
    assertThat(r.entityId()).isEqualTo("schedule-1");
    assertThat(r.timeMillis()).isEqualTo(42L);

    StackBatch back = StackBatches.decode(r.body());
    assertThat(back.targetType()).isEqualTo(ProfilingTask.OFF_CPU);
    assertThat(back.symbols()).containsExactly("schedule", "do_syscall_64", "read", "main", "sleep", "λ-Ünïcode");
    assertThat(back.samples()).hasSize(2);
    assertThat(back.samples().get(0).count()).isEqualTo(7);
    assertThat(back.samples().get(0).durationNanos()).isEqualTo(1_500_000_000L);
    assertThat(back.samples().get(0).kernelSymbols()).containsExactly(0, 1);
    assertThat(back.samples().get(1).userSymbols()).containsExactly(4, 3, 5);
    assertThat(back.samples().get(1).kernelSymbols()).isEmpty();
  }

  @Test
  void aCorruptBodyIsRefusedWithAReasonNotACrash() {
    StackBatch.Builder b = new StackBatch.Builder(ProfilingTask.ON_CPU);
    b.add(1, 0, List.of(), List.of("main"));
    byte[] body = StackBatches.encode(b.build());
    assertThatThrownBy(() -> StackBatches.decode(Arrays.copyOf(body, body.length - 2)))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] badVersion = body.clone();
    badVersion[0] = 9;
    assertThatThrownBy(() -> StackBatches.decode(badVersion)).hasMessageContaining("version 9");
  }

  @Test
  void scheduleIdsAreSkyWalkingsAndASchedulesRecordRoundTrips() {
    String id = ProfilingSchedules.scheduleId("task", "process", 1000L);
    assertThat(id).hasSize(64).isEqualTo(ProfilingSchedules.scheduleId("task", "process", 1000L));
    ProfilingSchedule s = new ProfilingSchedule(id, "task", "process", 1000L, 6000L);
    StoredRecord r = ProfilingSchedules.toRecord(s);
    assertThat(r.entityId()).isEqualTo("task");
    assertThat(r.timeMillis()).isEqualTo(1000L);
    assertThat(ProfilingSchedules.fromRecord(r)).isEqualTo(s);
  }
}
