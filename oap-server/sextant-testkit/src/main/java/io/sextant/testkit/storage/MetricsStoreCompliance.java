package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.MetricsStore} contract: partial rows are read back metric by
 * metric, by entity and inclusive bucket range, and a rewritten partial replaces itself; compaction
 * of a closed minute changes no total, whoever compacts, however often, and wherever it stops.
 */
public abstract class MetricsStoreCompliance extends StorageCompliance {
  /** A row of one metric, its group named after it. */
  private static PartialRow partial(String metric, String entity, Step step, long bucket, String writer, long seq,
      long count, byte[] sketch) {
    return new PartialRow(metric, entity, step, bucket, writer, seq,
        List.of(new PartialRow.Cell(metric, new long[] {count, 2 * count, 0}, sketch)));
  }

  @Test
  void aRowIsReadBackMetricByMetric() throws Exception {
    byte[] sketch = {9, 8, 7};
    PartialRow row = new PartialRow("CALL_SERVICE", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 3, List.of(
        new PartialRow.Cell("service_cpm", new long[] {10, 0, 0}, null),
        new PartialRow.Cell("service_percentile", new long[] {10, 0, 0}, sketch),
        new PartialRow.Cell("service_sla", new long[] {10, 9, 0}, null)));
    PartialRow other = new PartialRow("CALL_SERVICE", "Yg==.1", Step.MINUTE, 202611221000L, "c1", 4, List.of(
        new PartialRow.Cell("service_cpm", new long[] {4, 0, 0}, null)));
    storage.metrics().write(List.of(row, other));
    awaitWrites();
    assertThat(storage.metrics().read("service_sla", null, Step.MINUTE, 202611221000L, 202611221000L))
        .singleElement().satisfies(p -> {
          assertThat(p.metric()).isEqualTo("service_sla");
          assertThat(p.entityId()).isEqualTo("YQ==.1");
          assertThat(p.values()).containsExactly(10, 9, 0);
          assertThat(p.sequence()).isEqualTo(3);
        });
    assertThat(storage.metrics().read("service_percentile", List.of("YQ==.1"), Step.MINUTE,
        202611221000L, 202611221000L))
        .singleElement().satisfies(p -> assertThat(p.sketch()).containsExactly(sketch));
    assertThat(storage.metrics().read("service_cpm", null, Step.MINUTE, 202611221000L, 202611221000L))
        .extracting(p -> p.entityId() + "=" + p.values()[0]).containsExactlyInAnyOrder("YQ==.1=10", "Yg==.1=4");
  }

  @Test
  void partialsAreReadBackByEntityAndInclusiveRange() throws Exception {
    storage.metrics().write(List.of(
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 5, null),
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221001L, "c1", 2, 6, null),
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221002L, "c1", 3, 7, null),
        partial("service_cpm", "Yg==.1", Step.MINUTE, 202611221001L, "c1", 4, 8, null),
        partial("service_cpm", "YQ==.1", Step.HOUR, 2026112210L, "c1", 5, 18, null),
        partial("service_sla", "YQ==.1", Step.MINUTE, 202611221001L, "c1", 6, 9, null)));
    awaitWrites();
    List<MetricPartial> read = storage.metrics().read("service_cpm", List.of("YQ==.1"), Step.MINUTE,
        202611221001L, 202611221002L);
    assertThat(read).extracting(MetricPartial::bucket).containsExactlyInAnyOrder(202611221001L, 202611221002L);
    MetricPartial p = read.stream().filter(x -> x.bucket() == 202611221001L).findFirst().orElseThrow();
    assertThat(p.values()).containsExactly(6, 12, 0);
    assertThat(p.writerId()).isEqualTo("c1");
    assertThat(p.sequence()).isEqualTo(2);
    assertThat(p.step()).isEqualTo(Step.MINUTE);
    assertThat(p.entityId()).isEqualTo("YQ==.1");
    assertThat(p.sketch()).isNull();
    assertThat(storage.metrics().read("service_cpm", null, Step.MINUTE, 202611221000L, 202611221002L)).hasSize(4);
    assertThat(storage.metrics().read("service_cpm", List.of("YQ==.1", "Yg==.1"), Step.MINUTE,
        202611221001L, 202611221001L))
        .hasSize(2);
    assertThat(storage.metrics().read("service_cpm", null, Step.HOUR, 2026112210L, 2026112210L))
        .extracting(x -> x.values()[0]).containsExactly(18L);
    assertThat(storage.metrics().read("service_cpm", List.of("Yw==.1"), Step.MINUTE, 0, Long.MAX_VALUE)).isEmpty();
    assertThat(storage.metrics().read("nothing", null, Step.MINUTE, 0, Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void aRewrittenPartialReplacesItselfAndOtherWritersAddUp() throws Exception {
    byte[] sketch = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    storage.metrics().write(
        List.of(partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 5, sketch)));
    storage.metrics().write(List.of(
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 7, sketch),
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 2, 1, null),
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c2", 1, 3, null)));
    awaitWrites();
    List<MetricPartial> read = storage.metrics().read("service_percentile", List.of("YQ==.1"), Step.MINUTE,
        202611221000L, 202611221000L);
    assertThat(read).extracting(x -> x.writerId() + "/" + x.sequence() + "=" + x.values()[0])
        .containsExactlyInAnyOrder("c1/1=7", "c1/2=1", "c2/1=3");
    assertThat(read.stream().filter(x -> x.sequence() == 1 && x.writerId().equals("c1")).findFirst().orElseThrow()
        .sketch())
        .containsExactly(sketch);
  }

  // Compaction: rows of one group (two metrics) for two entities of one minute.
  private static final long MINUTE = 202611221100L;
  private static final List<String> ENTITIES = List.of("YQ==.1", "Yg==.1");

  private static PartialRow closed(String entity, String writer, long seq, long count) {
    return new PartialRow("CALL_SERVICE", entity, Step.MINUTE, MINUTE, writer, seq, List.of(
        new PartialRow.Cell("service_cpm", new long[] {count, 0, 0}, null),
        new PartialRow.Cell("service_sla", new long[] {count, count - 1, 0}, null)), true, List.of());
  }

  /**
   * A {@link io.sextant.api.storage.MetricsStore.RowMerger} for store tests: sums the counters, as
   * the metric functions merge them; sketches are not merged.
   */
  public static List<PartialRow.Cell> sum(List<PartialRow> rows) {
    Map<String, long[]> sums = new TreeMap<>();
    for (PartialRow r : rows) {
      for (PartialRow.Cell c : r.cells()) {
        long[] into = sums.computeIfAbsent(c.metric(), m -> new long[3]);
        for (int i = 0; i < 3; i++) {
          into[i] += c.values()[i];
        }
      }
    }
    return sums.entrySet().stream().map(e -> new PartialRow.Cell(e.getKey(), e.getValue(), null)).toList();
  }

  /** The metric's counters of each entity in the minute, as a query merges them. */
  private Map<String, List<Long>> totals(String metric) {
    Map<String, List<Long>> out = new TreeMap<>();
    for (MetricPartial p : storage.metrics().read(metric, ENTITIES, Step.MINUTE, MINUTE, MINUTE)) {
      List<Long> t = out.computeIfAbsent(p.entityId(), e -> new ArrayList<>(List.of(0L, 0L)));
      t.set(0, t.get(0) + p.values()[0]);
      t.set(1, t.get(1) + p.values()[1]);
    }
    return out;
  }

  private int partialsRead() {
    return storage.metrics().read("service_cpm", ENTITIES, Step.MINUTE, MINUTE, MINUTE).size();
  }

  private void compact() throws Exception {
    storage.metrics().compact(Step.MINUTE, MINUTE, 0, 1, MetricsStoreCompliance::sum);
    awaitWrites();
  }

  /** Three collectors' closed rows and a killed collector's open one (never closed), per entity. */
  private void writeThreeClosedAndOneOpen() throws Exception {
    List<PartialRow> rows = new ArrayList<>();
    for (String e : ENTITIES) {
      rows.add(closed(e, "c1", 1, 10));
      rows.add(closed(e, "c2", 1, 20));
      rows.add(closed(e, "c3", 1, 30));
      rows.add(new PartialRow("CALL_SERVICE", e, Step.MINUTE, MINUTE, "dead", 1,
          List.of(new PartialRow.Cell("service_cpm", new long[] {4, 0, 0}, null))));
    }
    storage.metrics().write(rows);
    awaitWrites();
  }

  @Test
  void compactionMergesClosedRowsIntoOneAndReadsAddUpExactlyAsBefore() throws Exception {
    writeThreeClosedAndOneOpen();
    Map<String, List<Long>> cpm = totals("service_cpm");
    Map<String, List<Long>> sla = totals("service_sla");
    assertThat(cpm).containsEntry("YQ==.1", List.of(64L, 0L));
    assertThat(partialsRead()).isEqualTo(8);

    compact();

    assertThat(totals("service_cpm")).isEqualTo(cpm);
    assertThat(totals("service_sla")).isEqualTo(sla);
    // Per entity: the compacted partial and the row that was never closed.
    assertThat(storage.metrics().read("service_cpm", ENTITIES, Step.MINUTE, MINUTE, MINUTE))
        .extracting(p -> p.entityId() + " " + p.writerId() + " " + p.values()[0])
        .containsExactlyInAnyOrder("YQ==.1 (compacted) 60", "YQ==.1 dead 4", "Yg==.1 (compacted) 60", "Yg==.1 dead 4");
    compact(); // nothing new: nothing changes
    assertThat(totals("service_cpm")).isEqualTo(cpm);
    assertThat(partialsRead()).isEqualTo(4);
  }

  @Test
  void hoursAndDaysCompactByTheirOwnStepAndLeaveOtherStepsAlone() throws Exception {
    writeThreeClosedAndOneOpen(); // minute rows of the same entities, which stay as they are
    Map<Step, Long> buckets = Map.of(Step.HOUR, MINUTE / 100, Step.DAY, MINUTE / 10_000);
    List<PartialRow> rows = new ArrayList<>();
    buckets.forEach((step, bucket) -> {
      for (String writer : List.of("c1", "c2", "c3")) {
        rows.add(new PartialRow("CALL_SERVICE", "YQ==.1", step, bucket, writer, 7, List.of(
            new PartialRow.Cell("service_cpm", new long[] {100, 0, 0}, null)), true, List.of()));
      }
      rows.add(new PartialRow("CALL_SERVICE", "YQ==.1", step, bucket, "c4", 7,
          List.of(new PartialRow.Cell("service_cpm", new long[] {5, 0, 0}, null)))); // still rewritten
    });
    storage.metrics().write(rows);
    awaitWrites();

    for (var b : buckets.entrySet()) {
      storage.metrics().compact(b.getKey(), b.getValue(), 0, 1, MetricsStoreCompliance::sum);
      awaitWrites();
      assertThat(storage.metrics().read("service_cpm", ENTITIES, b.getKey(), b.getValue(), b.getValue()))
          .as(b.getKey().name()).extracting(p -> p.writerId() + " " + p.values()[0])
          .containsExactlyInAnyOrder("(compacted) 300", "c4 5");
    }
    assertThat(partialsRead()).as("the minute's rows untouched").isEqualTo(8);
  }

  @Test
  void rowsClosedAfterACompactionAddUpAndTheNextCompactionFoldsThem() throws Exception {
    writeThreeClosedAndOneOpen();
    compact();
    // Late data (a new sequence) and a collector back from an outage, both closed after the compaction.
    storage.metrics().write(List.of(closed("YQ==.1", "c1", 2, 5), closed("YQ==.1", "c4", 1, 7)));
    awaitWrites();
    assertThat(totals("service_cpm")).containsEntry("YQ==.1", List.of(76L, 0L));

    compact();

    assertThat(totals("service_cpm")).containsEntry("YQ==.1", List.of(76L, 0L)).containsEntry("Yg==.1",
        List.of(64L, 0L));
    assertThat(totals("service_sla")).containsEntry("YQ==.1", List.of(72L, 67L));
    assertThat(storage.metrics().read("service_cpm", List.of("YQ==.1"), Step.MINUTE, MINUTE, MINUTE))
        .extracting(p -> p.writerId() + "/" + p.sequence() + "=" + p.values()[0])
        .containsExactlyInAnyOrder("(compacted)/2=72", "dead/1=4"); // the earlier compacted partial folded in
  }

  @Test
  void aCompactorKilledBetweenCreatingAndDeletingCountsNothingTwice() throws Exception {
    writeThreeClosedAndOneOpen();
    Map<String, List<Long>> cpm = totals("service_cpm");
    // What a compactor killed after creating its row and before deleting the rows it covers leaves.
    storage.metrics().write(List.of(new PartialRow("CALL_SERVICE", "YQ==.1", Step.MINUTE, MINUTE,
        MetricPartial.COMPACTED, 1, List.of(new PartialRow.Cell("service_cpm", new long[] {60, 0, 0}, null),
            new PartialRow.Cell("service_sla", new long[] {60, 57, 0}, null)), true,
        List.of("c1|1", "c2|1", "c3|1"))));
    awaitWrites();
    assertThat(totals("service_cpm")).isEqualTo(cpm);

    compact(); // the next compactor deletes what the first one covered, and compacts the other entity

    assertThat(totals("service_cpm")).isEqualTo(cpm);
    assertThat(partialsRead()).isEqualTo(4);
  }

  @Test
  void compactorsRacingOverTheSameMinuteAndSharesCountEveryRowOnce() throws Exception {
    writeThreeClosedAndOneOpen();
    Map<String, List<Long>> cpm = totals("service_cpm");
    // Two collectors that disagree on the roster: one compacts everything, the others half each.
    List<Callable<Object>> compactors = List.of(
        () -> storage.metrics().compact(Step.MINUTE, MINUTE, 0, 1, MetricsStoreCompliance::sum),
        () -> storage.metrics().compact(Step.MINUTE, MINUTE, 0, 2, MetricsStoreCompliance::sum),
        () -> storage.metrics().compact(Step.MINUTE, MINUTE, 1, 2, MetricsStoreCompliance::sum));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (Future<Object> f : pool.invokeAll(compactors)) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    awaitWrites();
    assertThat(totals("service_cpm")).isEqualTo(cpm);
    compact();
    assertThat(totals("service_cpm")).isEqualTo(cpm);
    assertThat(partialsRead()).isEqualTo(4);
  }
}
