package io.sextant.core.flush;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingWritesTest {
  private static PartialRow row(String entity, long count) {
    return new PartialRow("CALL_SERVICE", entity, Step.MINUTE, 202611221000L, "c1", 1,
        List.of(new PartialRow.Cell("service_cpm", new long[] {count, 0, 0}, null)));
  }

  @Test
  void aNewerVersionReplacesTheWaitingOne() {
    PendingWrites p = new PendingWrites(1 << 20, 10);
    p.row(row("a", 1));
    p.row(row("a", 2));
    PendingWrites.Batch b = p.take();
    assertThat(b.rowList()).singleElement().satisfies(r -> assertThat(r.cells().get(0).values()[0]).isEqualTo(2));
    assertThat(p.take().isEmpty()).isTrue();
  }

  @Test
  void aFailedBatchComesBackButWhatArrivedMeanwhileWins() {
    PendingWrites p = new PendingWrites(1 << 20, 10);
    p.row(row("a", 1));
    p.row(row("b", 1));
    p.endpoint(new EndpointMeta("e", "a", "GET:/", 202611221000L, 202611221000L));
    PendingWrites.Batch failed = p.take();
    p.row(row("a", 5));
    p.endpoint(new EndpointMeta("e", "a", "GET:/", 202611221003L, 202611221003L));
    p.restore(failed);

    PendingWrites.Batch again = p.take();
    assertThat(again.rowList()).extracting(r -> r.entityId() + "=" + r.cells().get(0).values()[0])
        .containsExactlyInAnyOrder("a=5", "b=1");
    EndpointMeta e = again.endpoints.get("e");
    assertThat(e.firstSeen()).isEqualTo(202611221000L);
    assertThat(e.lastSeen()).isEqualTo(202611221003L);
  }

  @Test
  void pastTheBoundsTheOldestRowsAndNewMetadataAreDroppedAndCounted() {
    PendingWrites p = new PendingWrites(3 * row("s0", 0).weightBytes(), 2); // room for three rows
    for (int i = 0; i < 5; i++) {
      p.row(row("s" + i, i));
    }
    p.row(row("s2", 7)); // a newer version of a waiting row is kept, and is now the youngest
    p.row(row("s5", 5));
    assertThat(p.droppedRows()).isEqualTo(3);
    Edge edge = new Edge(Scope.SERVICE, "s0", "s1", DetectPoint.CLIENT, "HTTP");
    p.edge(202611221000L, edge);
    p.edge(202611221000L, edge); // already waiting: no room needed
    p.endpoint(new EndpointMeta("e1", "s0", "GET:/", 202611221000L, 202611221000L));
    p.endpoint(new EndpointMeta("e2", "s0", "GET:/b", 202611221000L, 202611221000L));
    assertThat(p.droppedMetadata()).isEqualTo(1);

    PendingWrites.Batch b = p.take();
    assertThat(b.rowList()).extracting(PartialRow::entityId).containsExactly("s4", "s2", "s5");
    assertThat(b.rowBytes()).isEqualTo(3 * row("s0", 0).weightBytes());
    assertThat(b.edges.get(202611221000L)).containsExactly(edge);
    assertThat(b.endpoints).containsOnlyKeys("e1");
  }

  @Test
  void theBatchBeingWrittenCountsAgainstTheBound() {
    long one = row("s0", 0).weightBytes();
    PendingWrites p = new PendingWrites(3 * one, 10);
    p.row(row("s0", 0));
    p.row(row("s1", 1));
    PendingWrites.Batch writing = p.take();
    p.row(row("s2", 2));
    p.row(row("s3", 3)); // two in flight + two waiting: the oldest waiting goes
    assertThat(p.droppedRows()).isEqualTo(1);
    assertThat(p.rowBytes()).isEqualTo(3 * one);
    p.written(writing);
    assertThat(p.rowBytes()).isEqualTo(one);
    p.row(row("s4", 4));
    p.row(row("s5", 5));
    assertThat(p.droppedRows()).isEqualTo(1);
  }
}
