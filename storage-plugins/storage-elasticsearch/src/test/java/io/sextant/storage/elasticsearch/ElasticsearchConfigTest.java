package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.testkit.config.KeySettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plugin's keys, how they load, the factory, and the record indices' names and retention. */
class ElasticsearchConfigTest {
  @Test
  void theBuilderStartsAtTheKeysDefaults() {
    assertThat(ElasticsearchConfig.load(KeySettings.of(ElasticsearchConfig.KEYS, Map.of())))
        .isEqualTo(ElasticsearchConfig.builder().build())
        .isEqualTo(new ElasticsearchConfig(List.of("127.0.0.1:9200"), false, "", "", "", "", "", "sextant", 1, 0,
            30_000, 2000, 2, 2, 15, 90, 10, 3, 32, 120, 1000));
  }

  @Test
  void loadReadsEveryKey() {
    ElasticsearchConfig c = ElasticsearchConfig.load(KeySettings.of(ElasticsearchConfig.KEYS, Map.ofEntries(
        Map.entry("storage.elasticsearch.hosts", "es1:9200 , es2:9201"),
        Map.entry("storage.elasticsearch.tls", "true"),
        Map.entry("storage.elasticsearch.trustStorePath", "/t.p12"),
        Map.entry("storage.elasticsearch.trustStorePassword", "tp"),
        Map.entry("storage.elasticsearch.username", "u"),
        Map.entry("storage.elasticsearch.password", "p"),
        Map.entry("storage.elasticsearch.apiKey", "k"),
        Map.entry("storage.elasticsearch.indexPrefix", "x"),
        Map.entry("storage.elasticsearch.shards", "3"),
        Map.entry("storage.elasticsearch.replicas", "1"),
        Map.entry("storage.elasticsearch.requestTimeoutMillis", "5000"),
        Map.entry("storage.elasticsearch.bulkActions", "100"),
        Map.entry("storage.elasticsearch.bulkConcurrency", "4"),
        Map.entry("storage.elasticsearch.minuteRetentionDays", "5"),
        Map.entry("storage.elasticsearch.hourRetentionDays", "6"),
        Map.entry("storage.elasticsearch.dayRetentionDays", "7"),
        Map.entry("storage.elasticsearch.metadataCacheSeconds", "8"),
        Map.entry("storage.elasticsearch.recordRetentionDays", "9"),
        Map.entry("storage.elasticsearch.readCacheMegabytes", "10"),
        Map.entry("storage.elasticsearch.readCacheMarginSeconds", "60"),
        Map.entry("storage.elasticsearch.readStalenessMillis", "250"))));
    assertThat(c).isEqualTo(new ElasticsearchConfig(List.of("es1:9200", "es2:9201"), true, "/t.p12", "tp", "u", "p",
        "k", "x", 3, 1, 5000, 100, 4, 5, 6, 7, 8, 9, 10, 60, 250));
    assertThat(c.toBuilder().build()).isEqualTo(c);
  }

  @Test
  void theHostsKeyKeepsItsShortAlias() {
    ConfigKey hosts = ElasticsearchConfig.KEYS.get(0);
    assertThat(hosts.path()).isEqualTo("storage.elasticsearch.hosts");
    assertThat(hosts.envName()).isEqualTo("SEXTANT_STORAGE_ELASTICSEARCH_HOSTS");
    assertThat(hosts.alias()).isEqualTo("SEXTANT_ES_HOSTS");
    assertThat(ElasticsearchConfig.KEYS).allSatisfy(k -> assertThat(k.path()).startsWith("storage.elasticsearch."));
  }

  @Test
  void theFactoryMakesAStoreWithoutConnecting() {
    ElasticsearchStorageFactory factory = new ElasticsearchStorageFactory();
    assertThat(factory.name()).isEqualTo("elasticsearch");
    assertThat(factory.keys()).isSameAs(ElasticsearchConfig.KEYS);
    // Nothing listens there: create() must not try.
    var storage = factory.create(KeySettings.of(factory.keys(), Map.of("storage.elasticsearch.hosts",
        "127.0.0.1:1", "storage.elasticsearch.recordRetentionDays", "4")), new SimpleMeterRegistry());
    assertThat(storage.retention().recordDays()).isEqualTo(4);
    storage.close();
  }

  @Test
  void recordsGoToDailyUtcIndicesKeptForTheirRetention() {
    Indices indices = new Indices("p");
    long t = Instant.parse("2026-11-22T23:59:59.999Z").toEpochMilli();
    assertThat(indices.records(t)).isEqualTo("p-records-20261122");
    assertThat(indices.records(t + 1)).isEqualTo("p-records-20261123");
    assertThat(indices.records(t - 86_400_000L, t + 1))
        .isEqualTo("p-records-20261121,p-records-20261122,p-records-20261123");
    assertThat(indices.records(0, Long.MAX_VALUE)).isEqualTo("p-records-*");
    ElasticsearchConfig config = ElasticsearchConfig.builder().recordRetentionDays(3).build();
    assertThat(IndexRetention.cutoff("p-records-20261118", "p", 20261122L, config)).isZero();
    assertThat(IndexRetention.cutoff("p-records-20261119", "p", 20261122L, config)).isEqualTo(-1);
    assertThat(IndexRetention.cutoff("p-management", "p", 20261122L, config)).isEqualTo(-1);
  }
}
