package io.sextant.storage.elasticsearch;

import java.util.List;

/**
 * Connection and layout settings. {@code hosts} are {@code host:port}; credentials are either
 * username/password or an API key (empty when unused); {@code trustStorePath} (PKCS#12) turns on
 * TLS. Shards and replicas apply to every index Sextant creates. Writes go in {@code _bulk}
 * requests of at most {@code bulkActions} documents, {@code bulkConcurrency} at a time. The list
 * of services read from Elasticsearch is reused for {@code metadataCacheSeconds} (0: read every
 * time); this collector's own writes clear it as soon as they are searchable.
 */
public record ElasticsearchConfig(
    List<String> hosts,
    boolean tls,
    String trustStorePath,
    String trustStorePassword,
    String username,
    String password,
    String apiKey,
    String indexPrefix,
    int shards,
    int replicas,
    int requestTimeoutMillis,
    int bulkActions,
    int bulkConcurrency,
    int minuteRetentionDays,
    int hourRetentionDays,
    int dayRetentionDays,
    int metadataCacheSeconds) {}
