package io.sextant.testkit.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StoredRecord;
import io.sextant.api.time.TimeBuckets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.RecordStore} contract: records come back whole, newest first,
 * filtered by kind, entity, inclusive time range and tags, at most the limit; a record written again
 * replaces itself; records past {@link io.sextant.api.storage.Retention#recordDays()} go.
 */
public abstract class RecordStoreCompliance extends StorageCompliance {
  /** 10:00 UTC, so records an hour or two apart stay on one day for backends that index by day. */
  private static final long T0 = Instant.parse("2026-11-22T10:00:00Z").toEpochMilli();
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;

  private static StoredRecord record(String kind, String id, String entity, long time, List<String> tags, String body) {
    return new StoredRecord(kind, id, entity, time, tags, body.getBytes(UTF_8));
  }

  /** Everything a record holds, its time relative to T0, so assertions compare whole records. */
  private static String text(StoredRecord r) {
    return r.kind() + "/" + r.id() + " " + r.entityId() + " @" + (r.timeMillis() - T0) + " " + r.tags() + " "
        + new String(r.body(), UTF_8);
  }

  private List<String> read(String kind, Collection<String> entities, long start, long end, List<String> tags,
      int limit) {
    return storage.records().read(new RecordQuery(kind, entities, start, end, tags, limit)).stream()
        .map(RecordStoreCompliance::text).toList();
  }

  @Test
  void recordsComeBackWholeNewestFirstAndKindsApart() throws Exception {
    byte[] binary = {0, -1, 127, -128, 10, 13};
    storage.records().write(List.of(
        record("sample", "s1", "YQ==.1", T0, List.of("status=ok", "endpoint=/a"), "one"),
        record("sample", "s3", "YQ==.1", T0 + 2000, List.of(), "three"),
        new StoredRecord("sample", "s2", "Yg==.1", T0 + 1000, List.of("status=error"), binary),
        record("event", "s1", "YQ==.1", T0 + 500, List.of("type=start"), "an event")));
    awaitWrites();

    assertThat(read("sample", null, T0 - DAY, T0 + DAY, List.of(), 100)).containsExactly(
        "sample/s3 YQ==.1 @2000 [] three",
        "sample/s2 Yg==.1 @1000 [status=error] " + new String(binary, UTF_8),
        "sample/s1 YQ==.1 @0 [status=ok, endpoint=/a] one");
    assertThat(read("event", null, 0, Long.MAX_VALUE, List.of(), 100)).containsExactly(
        "event/s1 YQ==.1 @500 [type=start] an event");
    assertThat(storage.records().read(new RecordQuery("sample", List.of("Yg==.1"), T0, T0 + 1000, List.of(), 1)))
        .singleElement().satisfies(r -> assertThat(r.body()).containsExactly(binary));
    assertThat(read("profile", null, 0, Long.MAX_VALUE, List.of(), 100)).isEmpty();
  }

  @Test
  void timeBoundsAreInclusiveAndReadsCrossDays() throws Exception {
    storage.records().write(List.of(
        record("sample", "yesterday", "YQ==.1", T0 - 11 * HOUR, List.of(), "a"), // 23:00 the day before
        record("sample", "start", "YQ==.1", T0, List.of(), "b"),
        record("sample", "next", "YQ==.1", T0 + 1, List.of(), "c"),
        record("sample", "last", "YQ==.1", T0 + 59_999, List.of(), "d"),
        record("sample", "after", "YQ==.1", T0 + 60_000, List.of(), "e")));
    awaitWrites();

    assertThat(read("sample", null, T0 + 1, T0 + 59_999, List.of(), 100)).containsExactly(
        "sample/last YQ==.1 @59999 [] d", "sample/next YQ==.1 @1 [] c");
    assertThat(read("sample", null, T0, T0, List.of(), 100)).containsExactly("sample/start YQ==.1 @0 [] b");
    assertThat(read("sample", null, T0 + 60_001, T0 + HOUR, List.of(), 100)).isEmpty();
    assertThat(read("sample", null, T0 - 12 * HOUR, T0, List.of(), 100)).containsExactly(
        "sample/start YQ==.1 @0 [] b", "sample/yesterday YQ==.1 @-39600000 [] a");
  }

  @Test
  void entitiesAndEveryTagFilter() throws Exception {
    storage.records().write(List.of(
        record("call", "c1", "YQ==.1", T0, List.of("status=error", "endpoint=/a"), "1"),
        record("call", "c2", "YQ==.1", T0 + 1, List.of("status=error"), "2"),
        record("call", "c3", "Yg==.1", T0 + 2, List.of("endpoint=/a", "status=error", "x=y"), "3"),
        record("call", "c4", "Yw==.1", T0 + 3, List.of("status=error", "endpoint=/a"), "4"),
        record("call", "c5", "YQ==.1", T0 + 4, List.of("status=ok", "endpoint=/a"), "5")));
    awaitWrites();

    List<String> both = List.of("status=error", "endpoint=/a");
    assertThat(read("call", List.of("YQ==.1", "Yg==.1"), T0, T0 + 10, both, 100)).containsExactly(
        "call/c3 Yg==.1 @2 [endpoint=/a, status=error, x=y] 3",
        "call/c1 YQ==.1 @0 [status=error, endpoint=/a] 1");
    assertThat(read("call", null, T0, T0 + 10, both, 100)).extracting(s -> s.substring(0, 7))
        .containsExactly("call/c4", "call/c3", "call/c1");
    assertThat(read("call", List.of("YQ==.1"), T0, T0 + 10, List.of(), 100)).extracting(s -> s.substring(0, 7))
        .containsExactly("call/c5", "call/c2", "call/c1");
    assertThat(read("call", List.of("Yw==.1"), T0, T0 + 10, List.of("status=ok"), 100)).isEmpty();
    assertThat(read("call", List.of(), T0, T0 + 10, List.of(), 100)).isEmpty();
  }

  @Test
  void theLimitKeepsTheNewest() throws Exception {
    for (int i = 0; i < 5; i++) {
      storage.records().write(List.of(record("event", "e" + i, "YQ==.1", T0 + i * 1000L, List.of(), "body" + i)));
    }
    awaitWrites();

    assertThat(read("event", null, T0, T0 + DAY, List.of(), 3)).containsExactly(
        "event/e4 YQ==.1 @4000 [] body4", "event/e3 YQ==.1 @3000 [] body3", "event/e2 YQ==.1 @2000 [] body2");
    assertThat(read("event", null, T0, T0 + DAY, List.of(), 1)).containsExactly("event/e4 YQ==.1 @4000 [] body4");
  }

  @Test
  void aRecordWrittenAgainReplacesItself() throws Exception {
    storage.records().write(List.of(
        record("task", "t1", "YQ==.1", T0, List.of("state=running"), "v1"),
        record("schedule", "t1", "YQ==.1", T0, List.of("state=running"), "other kind")));
    awaitWrites();
    storage.records().write(List.of(record("task", "t1", "Yg==.1", T0 + 60_000, List.of("state=done"), "v2")));
    awaitWrites();

    assertThat(read("task", null, T0 - DAY, T0 + DAY, List.of(), 100)).containsExactly(
        "task/t1 Yg==.1 @60000 [state=done] v2");
    assertThat(read("task", null, T0 - DAY, T0 + DAY, List.of("state=running"), 100)).isEmpty();
    assertThat(read("schedule", null, T0 - DAY, T0 + DAY, List.of(), 100)).containsExactly(
        "schedule/t1 YQ==.1 @0 [state=running] other kind");
  }

  @Test
  void recordsPastTheirRetentionAreDroppedAndRecentOnesStay() throws Exception {
    int days = storage.retention().recordDays();
    assertThat(days).isPositive();
    long old = T0 - (days + 1) * DAY - HOUR;
    storage.records().write(List.of(
        record("event", "old", "YQ==.1", old, List.of(), "gone"),
        record("event", "recent", "YQ==.1", T0 - HOUR, List.of(), "kept"),
        record("event", "now", "YQ==.1", T0, List.of(), "kept too")));
    awaitWrites();
    assertThat(read("event", null, 0, Long.MAX_VALUE, List.of(), 100)).hasSize(3);

    storage.applyRetention(new TimeBuckets(ZoneOffset.UTC, Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC)));
    awaitWrites();

    assertThat(read("event", null, 0, Long.MAX_VALUE, List.of(), 100)).containsExactly(
        "event/now YQ==.1 @0 [] kept too", "event/recent YQ==.1 @-3600000 [] kept");
  }
}
