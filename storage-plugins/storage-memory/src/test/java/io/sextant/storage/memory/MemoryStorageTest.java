package io.sextant.storage.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.Step;
import io.sextant.testkit.time.MovingClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MemoryStorageTest {
  private static PartialRow partial(long bucket, String writer, long seq, long count) {
    return new PartialRow("CALL_SERVICE", "YQ==.1", Step.MINUTE, bucket, writer, seq,
        List.of(new PartialRow.Cell("service_cpm", new long[] {count, 0, 0}, null)));
  }

  @Test
  void rewritingAPartialReplacesItAndOtherWritersAddUp() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000));
    s.metrics().write(List.of(partial(202611221000L, "c1", 1, 5)));
    s.metrics().write(List.of(partial(202611221000L, "c1", 1, 7), partial(202611221000L, "c2", 1, 3)));
    List<MetricPartial> read =
        s.metrics().read("service_cpm", List.of("YQ==.1"), Step.MINUTE, 202611221000L, 202611221000L);
    assertThat(read).extracting(p -> p.values()[0]).containsExactlyInAnyOrder(7L, 3L);
    assertThat(s.partialCount()).isEqualTo(2);
  }

  @Test
  void overTheBoundTheOldestBucketsAreEvictedAndCounted() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000));
    List<PartialRow> batch = new ArrayList<>();
    for (int minute = 0; minute < 20; minute++) {
      for (int writer = 0; writer < 100; writer++) {
        batch.add(partial(202611221000L + minute, "c" + writer, 1, 1));
      }
    }
    s.metrics().write(batch);
    assertThat(s.partialCount()).isLessThanOrEqualTo(1000);
    assertThat(s.evictedPartials()).isEqualTo(2000 - s.partialCount());
    assertThat(s.metrics().read("service_cpm", null, Step.MINUTE, 202611221019L, 202611221019L)).hasSize(100);
    assertThat(s.metrics().read("service_cpm", null, Step.MINUTE, 202611221000L, 202611221000L)).isEmpty();
  }

  private static PartialRow row(String entity, Step step, long bucket, long count) {
    return new PartialRow("CALL_SERVICE", entity, step, bucket, "c1", 1, List.of(
        new PartialRow.Cell("service_cpm", new long[] {count, 0, 0}, null),
        new PartialRow.Cell("service_sla", new long[] {count, count, 0}, null)));
  }

  /**
   * Issue 46: a flood of new names cost the services that were there before 87% of their minutes.
   * The history here arrives just before the flood (late data, as when a collector starts), and the
   * flood goes on for minutes: what protects the history is that it spans minutes, not its age.
   */
  @Test
  void aFloodOfNewNamesEvictsItselfAndTheServicesBeforeItKeepEveryMinute() {
    MovingClock clock = new MovingClock(1_795_000_000_000L);
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(10_000), clock);
    long first = 202611221000L;
    for (int minute = 0; minute < 30; minute++) {
      List<PartialRow> batch = new ArrayList<>();
      for (int svc = 0; svc < 5; svc++) {
        batch.add(row("control" + svc, Step.MINUTE, first + minute, 10 + svc));
        batch.add(row("control" + svc, Step.HOUR, 2026112210L, 10 + svc));
        batch.add(row("control" + svc, Step.DAY, 20261122L, 10 + svc));
      }
      s.metrics().write(batch);
    }
    // 20,000 names never seen, in the next minute, with their roll-ups: twelve times what the store holds.
    // The first 1,500 nearly fill it; by the time the rest arrive they are minutes old.
    for (int from = 0; from < 20_000; from += 500) {
      if (from == 1_500) {
        clock.advance(Duration.ofMinutes(3));
      }
      List<PartialRow> batch = new ArrayList<>();
      for (int i = from; i < from + 500; i++) {
        batch.add(row("flood" + i, Step.MINUTE, first + 30, 1));
        batch.add(row("flood" + i, Step.HOUR, 2026112210L, 1));
        batch.add(row("flood" + i, Step.DAY, 20261122L, 1));
      }
      s.metrics().write(batch);
    }
    assertThat(s.partialCount()).isLessThanOrEqualTo(10_000);
    assertThat(s.evictedPartials()).isEqualTo(5 * 32 * 2 + 20_000 * 3 * 2 - s.partialCount());
    for (int svc = 0; svc < 5; svc++) {
      List<String> ids = List.of("control" + svc);
      long calls = 10 + svc;
      assertThat(s.metrics().read("service_cpm", ids, Step.MINUTE, first, first + 29))
          .as("every minute of control%d", svc).hasSize(30).allMatch(p -> p.values()[0] == calls);
      assertThat(s.metrics().read("service_sla", ids, Step.HOUR, 2026112210L, 2026112210L))
          .singleElement().matches(p -> p.values()[0] == calls);
    }
  }

  @Test
  void partialsWithLargeSketchesAreBoundedByHeapNotByCount() {
    // 1 MB for metrics, a count bound far away: 20 minutes of 100 partials with 4 KB sketches is 8 MB.
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1_000_000, 1440, 168, 30, 100, 1440, 10, 1));
    for (int minute = 0; minute < 20; minute++) {
      List<PartialRow> batch = new ArrayList<>();
      for (int writer = 0; writer < 100; writer++) {
        batch.add(new PartialRow("service", "YQ==.1", Step.MINUTE, 202611221000L + minute, "c" + writer, 1,
            List.of(new PartialRow.Cell("service_percentile", new long[] {1, 0, 0}, new byte[4096]))));
      }
      s.metrics().write(batch);
      assertThat(s.partialBytes()).isLessThanOrEqualTo(1024 * 1024);
    }
    assertThat(s.partialCount()).isBetween(100L, 300L);
    assertThat(s.evictedPartials()).isEqualTo(2000 - s.partialCount());
    assertThat(s.metrics().read("service_percentile", null, Step.MINUTE, 202611221019L, 202611221019L))
        .as("the newest minute is kept whole").hasSize(100);
  }

  @Test
  void edgesAndMetadataAreReadByTimeWindow() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000));
    Edge e = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.CLIENT, "http");
    s.topology().write(List.of(e), 202611221000L);
    s.topology().write(List.of(e), 202611221005L);
    assertThat(s.topology().read(Scope.SERVICE, 202611221001L, 202611221004L)).isEmpty();
    assertThat(s.topology().read(Scope.SERVICE, 202611221000L, 202611221010L)).containsExactly(e);
    s.metadata().upsertServices(
        List.of(new ServiceMeta("YQ==.1", "a", true, Set.of("MESH"), 202611221005L, 202611221005L)));
    s.metadata().upsertServices(
        List.of(new ServiceMeta("YQ==.1", "a", true, Set.of("K8S_SERVICE"), 202611221000L, 202611221000L)));
    ServiceMeta a = s.metadata().service("YQ==.1").orElseThrow();
    assertThat(a.layers()).containsExactly("K8S_SERVICE", "MESH");
    assertThat(a.firstSeen()).isEqualTo(202611221000L);
    assertThat(a.lastSeen()).isEqualTo(202611221005L);
  }
}
