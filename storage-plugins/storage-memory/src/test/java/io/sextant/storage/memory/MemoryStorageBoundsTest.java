package io.sextant.storage.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.StoredRecord;
import io.sextant.testkit.config.KeySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The memory store's own bounds on records and documents, its retention report and its factory. */
class MemoryStorageBoundsTest {
  private static StoredRecord record(String kind, String id, long time) {
    return new StoredRecord(kind, id, "YQ==.1", time, List.of(), new byte[] {1});
  }

  @Test
  void overMaxRecordsTheOldestOfAnyKindAreEvictedAndCounted() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000, 1440, 168, 30, 100, 1440, 10, 0));
    List<StoredRecord> batch = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      batch.add(record(i % 2 == 0 ? "even" : "odd", "r" + i, 1_000_000L + i));
    }
    s.records().write(batch);
    s.records().write(List.of(record("even", "r148", 2_000_000L))); // a replacement evicts nothing

    assertThat(s.recordCount()).isEqualTo(100);
    assertThat(s.evictedRecords()).isEqualTo(50);
    List<StoredRecord> odd = s.records().read(new RecordQuery("odd", null, 0, Long.MAX_VALUE, List.of(), 1000));
    assertThat(odd).hasSize(50);
    assertThat(odd.get(odd.size() - 1).id()).isEqualTo("r51"); // r1 .. r49 went first
    List<StoredRecord> even = s.records().read(new RecordQuery("even", null, 0, Long.MAX_VALUE, List.of(), 1000));
    assertThat(even).extracting(StoredRecord::id).startsWith("r148", "r146").endsWith("r50").hasSize(50);
  }

  @Test
  void pastMaxManagementDocumentsCreatingFailsButUpdatingWorks() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000, 1440, 168, 30, 100, 1440, 2, 0));
    s.management().put("template", "a", "1", 0);
    s.management().put("template", "b", "1", 0);
    assertThatThrownBy(() -> s.management().put("template", "c", "1", 0))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("storage.memory.maxManagementDocuments");
    assertThat(s.management().put("template", "a", "2", 1).version()).isEqualTo(2);
    assertThat(s.management().delete("template", "b")).isTrue();
    assertThat(s.management().put("template", "c", "1", 0).version()).isEqualTo(1);
  }

  @Test
  void retentionIsReportedInWholeDaysRoundedUp() {
    MemoryStorage s = new MemoryStorage(new MemoryStorageConfig(1000, 1441, 24, 30, 100, 60, 10, 0));
    assertThat(s.retention()).isEqualTo(new Retention(2, 1, 30, 1));
  }

  @Test
  void theFactoryReadsItsKeysAndRegistersTheStoresSelfMetrics() {
    MemoryStorageFactory factory = new MemoryStorageFactory();
    assertThat(factory.name()).isEqualTo("memory");
    assertThat(factory.keys()).allSatisfy(k -> assertThat(k.path()).startsWith("storage.memory."));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    MemoryStorage s = (MemoryStorage) factory.create(KeySettings.of(factory.keys(),
        Map.of("storage.memory.maxRecords", "100")), meters);
    List<StoredRecord> batch = new ArrayList<>();
    for (int i = 0; i < 103; i++) {
      batch.add(record("event", "e" + i, i));
    }
    s.records().write(batch);

    assertThat(meters.get("sextant_storage_memory_evicted_records").functionCounter().count()).isEqualTo(3);
    assertThat(meters.get("sextant_storage_memory_records").gauge().value()).isEqualTo(100);
    assertThat(meters.get("sextant_storage_memory_evicted_partials").functionCounter().count()).isZero();
    assertThat(meters.get("sextant_storage_memory_partials").gauge().value()).isZero();
  }

  @Test
  void loadReadsEveryKeyWithTodaysDefaults() {
    assertThat(MemoryStorageConfig.load(KeySettings.of(MemoryStorageConfig.KEYS, Map.of())))
        .isEqualTo(new MemoryStorageConfig(600_000, 1440, 168, 30, 50_000, 1440, 10_000, 0));
    assertThat(MemoryStorageConfig.KEYS).extracting(k -> k.path().substring("storage.memory.".length()))
        .containsExactly("maxPartials", "minuteRetentionMinutes", "hourRetentionHours", "dayRetentionDays",
            "maxRecords", "recordRetentionMinutes", "maxManagementDocuments", "maxMetricMegabytes");
  }
}
