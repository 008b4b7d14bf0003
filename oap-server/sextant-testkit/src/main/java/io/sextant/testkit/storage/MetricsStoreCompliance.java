package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.MetricsStore} contract: partial rows are read back metric by
 * metric, by entity and inclusive bucket range, and a rewritten partial replaces itself.
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
}
