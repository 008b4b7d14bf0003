package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.MetricPartial;
import io.sextant.api.time.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Merging by partial key, trimming to the window, and the memory bound. */
class PartialCacheTest {
  private static MetricPartial partial(long bucket, String writer, long seq, long value) {
    return new MetricPartial("m", "e", Step.MINUTE, bucket, writer, seq, new long[] {value}, null);
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
    assertThat(next.partials().values())
        .extracting(p -> p.bucket() + "/" + p.writerId() + "/" + p.sequence() + "=" + p.values()[0])
        .containsExactlyInAnyOrder("11/a/0=20", "11/b/0=3", "11/a/1=5", "12/b/0=4", "13/c/0=7");
    assertThat(first.partials()).hasSize(4); // entries never change
    assertThat(next.advance(11, 11, 3_000, List.of()).partials()).hasSize(3);

    // Nothing new in the same window: the same partials, as of the later read.
    PartialCache.Series same = next.advance(11, 13, 4_000, List.of());
    assertThat(same.asOfMillis()).isEqualTo(4_000);
    assertThat(same.partials()).isEqualTo(next.partials());
    assertThat(same.weightBytes()).isEqualTo(next.weightBytes());
  }

  @Test
  void aSlowerReadDoesNotReplaceANewerOne() {
    PartialCache cache = new PartialCache(1 << 20);
    PartialCache.Series newer = PartialCache.Series.fetched(10, 10, 2_000, List.of(partial(10, "a", 0, 2)));
    cache.put(key("e"), newer);
    cache.put(key("e"), PartialCache.Series.fetched(10, 10, 1_000, List.of(partial(10, "a", 0, 1))));
    assertThat(cache.get(key("e"))).isSameAs(newer);
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
