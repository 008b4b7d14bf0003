package io.sextant.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.StoredRecord;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Sampled records read back from a real (memory) record store, ranked by value, id = refId as SkyWalking's; unknown
 * names refused.
 */
class RecordQueriesTest {
  private static final String NAME = "top_n_database_statement";
  private static final MqeEntity DB = new MqeEntity("db", true, null, null, null, null, null, null, null, null);

  @Test
  void aKnownRecordIsReadForItsOwnerRankedByValue() {
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000_000));
    String db = EntityIds.serviceId("db", true);
    long now = System.currentTimeMillis();
    storage.records().write(List.of(
        record("a", db, now - 3000, "select 1", "12", "t1"),
        record("b", db, now - 2000, "select 2", "250", "t2"),
        record("c", db, now - 1000, "select 3", "40", null),
        record("d", EntityIds.serviceId("other", true), now - 1000, "select 4", "999", "t4")));
    RecordQueries records = new RecordQueries(storage, Map.of(NAME, Scope.SERVICE));

    assertThat(records.top(NAME, DB, now - 60_000, now, 2, false)).containsExactly(
        new SampledRecord("select 2", "t2", "250", "t2"), new SampledRecord("select 3", "", "40", ""));
    assertThat(records.top(NAME, DB, now - 60_000, now, 10, true)).extracting(SampledRecord::name)
        .containsExactly("select 1", "select 3", "select 2");
    assertThat(records.top(NAME, DB, now - 2500, now, 10, true)).extracting(SampledRecord::name)
        .containsExactly("select 3", "select 2");
    assertThatThrownBy(() -> records.top(NAME, DB, 0, now, 0, true))
        .hasMessage("topN must be between 1 and 1000, was 0");
    assertThatThrownBy(() -> records.top("top_n_cache_read_command", DB, 0, now, 5, true))
        .hasMessage("record 'top_n_cache_read_command' is not one Sextant has: it keeps [top_n_database_statement]");
    assertThatThrownBy(() -> new RecordQueries(storage, Map.of()).top(NAME, DB, 0, now, 5, true))
        .hasMessage("record 'top_n_database_statement' is not one Sextant has: Sextant keeps no sampled records yet");
    assertThatThrownBy(() -> RecordQueries.over(storage).top(NAME, DB, 0, now, 5, true))
        .hasMessage("record 'top_n_database_statement' is not one Sextant has: it keeps [sampled_slow_trace_record, "
            + "sampled_status_4xx_trace_record, sampled_status_5xx_trace_record]");
  }

  private static StoredRecord record(String id, String owner, long time, String name, String value, String refId) {
    List<String> tags = refId == null
        ? List.of(StoredRecord.tag("name", name), StoredRecord.tag("value", value))
        : List.of(StoredRecord.tag("name", name), StoredRecord.tag("value", value), StoredRecord.tag("refId", refId));
    return new StoredRecord(NAME, id, owner, time, tags, new byte[0]);
  }
}
