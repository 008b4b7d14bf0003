package io.sextant.core.spool;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rows a write queue had no room for come back whole, oldest first, within the spool's bound. */
class OverflowTest {
  @TempDir
  Path dir;

  /** Rows of even values are closed (compaction takes only those), so the flag must come back too. */
  private static PartialRow row(String entity, long value) {
    return new PartialRow("CALL_SERVICE", entity, Step.HOUR, 2026112700L, "c@x", 7,
        List.of(new PartialRow.Cell("service_cpm", new long[] {value, -value, Long.MIN_VALUE}, null),
            new PartialRow.Cell("service_percentile", new long[] {1}, new byte[] {9, 8, 7})), value % 2 == 0,
        List.of());
  }

  private Spool spool(long maxBytes) {
    return new Spool(new SpoolConfig(dir, maxBytes, SpoolConfig.Fsync.NEVER, 1000), "c@x", new SimpleMeterRegistry());
  }

  /** Every row, segment by segment as storage would take them. */
  private static List<PartialRow> drain(Overflow overflow) {
    List<PartialRow> out = new ArrayList<>();
    for (Overflow.Chunk c = overflow.head(); c != null; c = overflow.head()) {
      assertThat(c.intact()).isTrue();
      out.addAll(c.rows());
      overflow.consumed(c);
    }
    return out;
  }

  @Test
  void rowsComeBackExactlyAndRowsPutInFrontComeFirst() {
    try (Spool spool = spool(64 << 20)) {
      Overflow overflow = spool.overflow();
      assertThat(overflow.append(List.of(row("b", 2), row("c", 3)))).isZero();
      assertThat(overflow.prepend(List.of(row("a", 1)))).isZero();
      Overflow.Chunk first = overflow.head();
      overflow.append(List.of(row("d", 4))); // while the head is out: goes behind everything
      overflow.consumed(first);
      List<PartialRow> rest = drain(overflow);

      assertThat(first.rows()).extracting(PartialRow::entityId).containsExactly("a");
      assertThat(rest).extracting(PartialRow::entityId).containsExactly("b", "c", "d");
      PartialRow back = rest.get(0);
      PartialRow sent = row("b", 2);
      assertThat(back.id()).isEqualTo(sent.id());
      assertThat(back.cells().get(0).values()).containsExactly(2, -2, Long.MIN_VALUE);
      assertThat(rest).extracting(PartialRow::closed).containsExactly(true, false, true);
      assertThat(back.step()).isEqualTo(Step.HOUR);
      assertThat(back.cells().get(0).sketch()).isNull();
      assertThat(back.cells().get(1).sketch()).containsExactly(9, 8, 7);
      assertThat(overflow.isEmpty()).isTrue();
      assertThat(overflow.bytes()).isZero();
    }
  }

  @Test
  void aLargeBatchPutInFrontIsSplitAndKeepsItsOrder() {
    try (Spool spool = spool(64 << 20)) {
      Overflow overflow = spool.overflow();
      overflow.append(List.of(row("newest", 1)));
      List<PartialRow> batch = IntStream.range(0, 25_000).mapToObj(n -> row("e" + n, n)).toList();
      overflow.prepend(batch);
      Overflow.Chunk first = overflow.head();
      assertThat(first.rows()).as("one segment of a bounded size").hasSizeLessThan(batch.size());
      overflow.consumed(first);
      List<PartialRow> all = new ArrayList<>(first.rows());
      all.addAll(drain(overflow));
      assertThat(all).extracting(PartialRow::entityId)
          .containsExactlyElementsOf(Stream.concat(batch.stream().map(PartialRow::entityId), Stream.of("newest"))
              .toList());
    }
  }

  @Test
  void pastTheSpoolsBoundTheOldestSegmentsGoAndTheirRowsAreCounted() throws IOException {
    try (Spool spool = spool(6 << 20)) {
      Overflow overflow = spool.overflow();
      long dropped = 0;
      int appended = 0;
      for (int i = 0; i < 40; i++) { // ~0.5 MB each, segments of 4 MB: past 6 MB the first goes
        List<PartialRow> rows = IntStream.range(0, 2_000).mapToObj(n -> row("e" + n, n)).toList();
        dropped += overflow.append(rows);
        appended += rows.size();
      }
      assertThat(dropped).isPositive();
      assertThat(spool.bytes()).isLessThanOrEqualTo(6 << 20);
      assertThat(overflow.rows()).isEqualTo(appended - dropped);
      assertThat(drain(overflow)).hasSize((int) (appended - dropped));
      try (Stream<Path> files = Files.list(dir.resolve("c_x"))) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("rows-"));
      }
    }
  }
}
