package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Merging by partial key, trimming to the window, and the memory bound. */
class PartialCacheTest {
  private static PartialCache.Stamped partial(long bucket, String writer, long seq, long value) {
    return stamped(bucket, writer, seq, value, value);
  }

  private static PartialCache.Stamped stamped(long bucket, String writer, long seq, long value, long written) {
    return new PartialCache.Stamped(new MetricPartial("m", "e", Step.MINUTE, bucket, writer, seq,
        new long[] {value}, null), written);
  }

  private static PartialRow row(String entity, long bucket, String writer, long value) {
    return new PartialRow("G", entity, Step.MINUTE, bucket, writer, 0,
        List.of(new PartialRow.Cell("m", new long[] {value}, null)));
  }

  private static List<String> values(PartialCache.Series s) {
    return s.partials().values().stream().map(PartialCache.Stamped::partial)
        .map(p -> p.bucket() + "/" + p.writerId() + "/" + p.sequence() + "=" + p.values()[0]).toList();
  }

  private static PartialCache.SeriesKey key(String entity) {
    return new PartialCache.SeriesKey(entity, Step.MINUTE);
  }

  @Test
  void newerCopiesReplaceOlderOnesAndOldBucketsLeave() {
    PartialCache.Series first = PartialCache.Series.fetched(10, 12, 1_000,
        List.of(partial(10, "a", 0, 1), partial(11, "a", 0, 2), partial(11, "b", 0, 3), partial(12, "b", 0, 4)));
    PartialCache.Series next = first.advance(11, 13, 2_000, List.of(partial(11, "a", 0, 20), partial(11, "a", 1, 5),
        partial(13, "c", 0, 7)));
    assertThat(next.fromBucket()).isEqualTo(11);
    assertThat(next.toBucket()).isEqualTo(13);
    assertThat(next.asOfMillis()).isEqualTo(2_000);
    assertThat(values(next)).containsExactlyInAnyOrder("11/a/0=20", "11/b/0=3", "11/a/1=5", "12/b/0=4", "13/c/0=7");
    assertThat(first.partials()).hasSize(4); // entries never change
    assertThat(next.advance(11, 11, 3_000, List.of()).partials()).hasSize(3);

    // Nothing new in the same window: the same partials, as of the later read.
    PartialCache.Series same = next.advance(11, 13, 4_000, List.of());
    assertThat(same.asOfMillis()).isEqualTo(4_000);
    assertThat(same.partials()).isEqualTo(next.partials());
    assertThat(same.weightBytes()).isEqualTo(next.weightBytes());
  }

  @Test
  void theLaterWrittenCopyWinsInWhicheverOrderCopiesArrive() {
    PartialCache cache = new PartialCache(1 << 20);
    // a read that started first but finished last brings an older copy of a partial and a new one.
    PartialCache.Series newer = PartialCache.Series.fetched(10, 11, 2_000, List.of(stamped(10, "a", 0, 2, 200)));
    assertThat(values(cache.put(key("e"), newer))).containsExactly("10/a/0=2");
    PartialCache.Series slower = cache.put(key("e"), PartialCache.Series.fetched(10, 12, 1_000,
        List.of(stamped(10, "a", 0, 1, 100), stamped(12, "b", 0, 5, 150))));
    assertThat(values(slower)).as("the slower read's own window, merged").containsExactlyInAnyOrder("10/a/0=2",
        "12/b/0=5");
    PartialCache.Series kept = cache.get(key("e"));
    assertThat(kept.asOfMillis()).isEqualTo(2_000);
    assertThat(kept.toBucket()).isEqualTo(11);
    assertThat(values(kept)).containsExactly("10/a/0=2");

    // this collector's write lands between a search and its answer: the search cannot undo it.
    cache.written(List.of(row("e", 11, "me", 7)), 300);
    cache.written(List.of(row("e", 10, "a", 9)), 50); // older than the copy found
    assertThat(values(cache.get(key("e")))).containsExactlyInAnyOrder("10/a/0=2", "11/me/0=7");
    cache.put(key("e"), PartialCache.Series.fetched(10, 11, 3_000, List.of(stamped(10, "a", 0, 2, 200),
        stamped(11, "me", 0, 6, 250))));
    assertThat(values(cache.get(key("e")))).containsExactlyInAnyOrder("10/a/0=2", "11/me/0=7");
    assertThat(cache.get(key("e")).asOfMillis()).isEqualTo(3_000);
    // writes to series nobody read are not kept.
    cache.written(List.of(row("other", 11, "me", 7)), 300);
    assertThat(cache.get(key("other"))).isNull();
  }

  @Test
  void theFollowerMovesTheEndAheadOfReadsAndTheStartOncePerIdleTime() {
    PartialCache cache = new PartialCache(1 << 20);
    cache.put(key("e"), PartialCache.Series.fetched(202611271000L, 202611271030L, 1_000, List.of()));
    cache.put(key("idle"), PartialCache.Series.fetched(202611271000L, 202611271030L, 1_000, List.of()));
    assertThat(cache.followed(2_000, 60_000, 2)).extracting(f -> f.key().entityId()).containsExactly("e", "idle");
    assertThat(cache.followed(100_000, 60_000, 2)).as("nobody read them for a minute").isEmpty();

    cache.read(key("e"), 202611271001L, 202611271031L, 100_000);
    cache.read(key("e"), 202611271005L, 202611271031L, 100_001);
    List<PartialCache.Followed> f = cache.followed(100_002, 60_000, 2);
    assertThat(f).hasSize(1);
    assertThat(f.get(0).toBucket()).isEqualTo(202611271033L);
    assertThat(f.get(0).fromBucket()).as("the earliest asked").isEqualTo(202611271001L);
    // the start is not narrowed again within the idle time; the end follows the newest asked.
    cache.read(key("e"), 202611271020L, 202611271030L, 100_003);
    f = cache.followed(100_004, 60_000, 2);
    assertThat(f.get(0).toBucket()).isEqualTo(202611271032L);
    assertThat(f.get(0).fromBucket()).isEqualTo(202611271000L);
    // nobody asked since: the end the series has.
    assertThat(cache.followed(100_005, 60_000, 2).get(0).toBucket()).isEqualTo(202611271030L);
  }

  @Test
  void keepsWithinItsBytesLeastRecentlyUsedOut() {
    PartialCache.Series one = PartialCache.Series.fetched(10, 10, 1, List.of(partial(10, "a", 0, 1)));
    PartialCache cache = new PartialCache(3 * one.weightBytes());
    cache.put(key("x"), one);
    cache.put(key("y"), one);
    cache.put(key("z"), one);
    cache.get(key("x"));
    cache.put(key("w"), one);
    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.bytes()).isLessThanOrEqualTo(3 * one.weightBytes());
    assertThat(cache.get(key("y"))).isNull();
    assertThat(cache.get(key("x"))).isNotNull();
    PartialCache.Series huge = PartialCache.Series.fetched(10, 10, 2, java.util.stream.LongStream.range(0, 100)
        .mapToObj(i -> partial(10, "w" + i, 0, i)).toList());
    cache.put(key("x"), huge);
    assertThat(cache.get(key("x"))).isNull();
    assertThat(cache.bytes()).isLessThanOrEqualTo(3 * one.weightBytes());
  }
}
