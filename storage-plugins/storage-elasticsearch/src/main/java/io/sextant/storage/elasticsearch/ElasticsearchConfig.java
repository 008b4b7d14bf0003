package io.sextant.storage.elasticsearch;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Connection and layout settings. {@code hosts} are {@code host:port}; credentials are either
 * username/password or an API key (empty when unused); {@code trustStorePath} (PKCS#12) turns on
 * TLS. Shards and replicas apply to every index Sextant creates. Writes go in {@code _bulk}
 * requests of at most {@code bulkActions} documents, {@code bulkConcurrency} at a time. The list
 * of services read from Elasticsearch is reused for {@code metadataCacheSeconds} (0: read every
 * time); this collector's own writes clear it as soon as they are searchable. Single-entity metric
 * reads keep what they fetched in {@code readCacheMegabytes} and then ask only for documents
 * written since their last read, less {@code readCacheMarginSeconds}; with
 * {@code readStalenessMillis}, what other collectors wrote may show that much later, and a read
 * of a series the collector keeps up to date answers from memory. Build one with
 * {@link #builder()} (defaults as {@link #KEYS}) or {@link #load(Settings)}.
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
    int metadataCacheSeconds,
    int recordRetentionDays,
    int readCacheMegabytes,
    int readCacheMarginSeconds,
    int readStalenessMillis) {

  private static final String P = "storage.elasticsearch.";
  /** What Elasticsearch takes in an index or template name, as the start of one. */
  private static final Pattern INDEX_PREFIX = Pattern.compile("[a-z0-9][a-z0-9._-]*");

  /** The keys this plugin reads, with today's paths, defaults and ranges. */
  public static final List<ConfigKey> KEYS = List.of(
      string(P + "hosts", "127.0.0.1:9200", "host:port[,host:port] (also SEXTANT_ES_HOSTS)")
          .withAlias("SEXTANT_ES_HOSTS"),
      bool(P + "tls", false, "connect with https"),
      optionalString(P + "trustStorePath", "PKCS#12 trust store for https (empty: the JVM's)"),
      optionalString(P + "trustStorePassword", "trust store password"),
      optionalString(P + "username", "basic-auth user (empty: none)"),
      optionalString(P + "password", "basic-auth password"),
      optionalString(P + "apiKey", "API key (base64 id:key), instead of a user"),
      new ConfigKey(P + "indexPrefix", "sextant", v -> v, v -> INDEX_PREFIX.matcher((String) v).matches() ? null
          : "must be lower case letters, digits, '.', '-' or '_', starting with a letter or digit (Elasticsearch's"
              + " index names)", "prefix of every index and template"),
      integer(P + "shards", 1, 1, 100, "primary shards per index (few: avoid shard sprawl)"),
      integer(P + "replicas", 0, 0, 10, "replicas per index"),
      integer(P + "requestTimeoutMillis", 30_000, 100, 600_000, "connect and socket timeout"),
      integer(P + "bulkActions", 2000, 1, 100_000, "documents per _bulk request"),
      integer(P + "bulkConcurrency", 2, 1, 64, "_bulk requests in flight at once"),
      integer(P + "minuteRetentionDays", 2, 1, 3650, "days of minute metrics and topology kept"),
      integer(P + "hourRetentionDays", 15, 1, 3650, "days of hour metrics kept"),
      integer(P + "dayRetentionDays", 90, 1, 36500, "days of day metrics kept"),
      integer(P + "metadataCacheSeconds", 10, 0, 3600,
          "seconds a collector reuses the services list it read; its own writes clear it at once"),
      integer(P + "recordRetentionDays", 3, 1, 3650,
          "days of records kept (profiling samples, sampled calls, events), in daily UTC indices"),
      integer(P + "readCacheMegabytes", 32, 0, 4096,
          "memory for metric partials a collector keeps from its reads of one entity, so a repeated read "
              + "fetches only documents written since; 0 reads everything every time"),
      integer(P + "readCacheMarginSeconds", 120, 31, 86_400,
          "how far back before its last read a cached read asks again; must exceed the 30 s fallback refresh, "
              + "plus one _bulk request with its resends, plus clock skew between collectors"),
      integer(P + "readStalenessMillis", 1000, 0, 60_000,
          "how much later than searchable other collectors' writes may show in reads of one entity: the "
              + "collector refreshes the series read in the last 5 minutes twice this often, and such reads "
              + "answer from memory; its own writes show at once; 0 searches on every read"));

  /** Reads the {@code storage.elasticsearch.*} keys. */
  public static ElasticsearchConfig load(Settings s) {
    return builder().hosts(s.list(P + "hosts")).tls(s.bool(P + "tls")).trustStorePath(s.string(P + "trustStorePath"))
        .trustStorePassword(s.string(P + "trustStorePassword")).username(s.string(P + "username"))
        .password(s.string(P + "password")).apiKey(s.string(P + "apiKey")).indexPrefix(s.string(P + "indexPrefix"))
        .shards(s.integer(P + "shards")).replicas(s.integer(P + "replicas"))
        .requestTimeoutMillis(s.integer(P + "requestTimeoutMillis")).bulkActions(s.integer(P + "bulkActions"))
        .bulkConcurrency(s.integer(P + "bulkConcurrency")).minuteRetentionDays(s.integer(P + "minuteRetentionDays"))
        .hourRetentionDays(s.integer(P + "hourRetentionDays")).dayRetentionDays(s.integer(P + "dayRetentionDays"))
        .metadataCacheSeconds(s.integer(P + "metadataCacheSeconds"))
        .recordRetentionDays(s.integer(P + "recordRetentionDays"))
        .readCacheMegabytes(s.integer(P + "readCacheMegabytes"))
        .readCacheMarginSeconds(s.integer(P + "readCacheMarginSeconds"))
        .readStalenessMillis(s.integer(P + "readStalenessMillis")).build();
  }

  /** A builder holding the keys' defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these settings, to change a few. */
  public Builder toBuilder() {
    return new Builder().hosts(hosts).tls(tls).trustStorePath(trustStorePath).trustStorePassword(trustStorePassword)
        .username(username).password(password).apiKey(apiKey).indexPrefix(indexPrefix).shards(shards)
        .replicas(replicas).requestTimeoutMillis(requestTimeoutMillis).bulkActions(bulkActions)
        .bulkConcurrency(bulkConcurrency).minuteRetentionDays(minuteRetentionDays)
        .hourRetentionDays(hourRetentionDays).dayRetentionDays(dayRetentionDays)
        .metadataCacheSeconds(metadataCacheSeconds).recordRetentionDays(recordRetentionDays)
        .readCacheMegabytes(readCacheMegabytes).readCacheMarginSeconds(readCacheMarginSeconds)
        .readStalenessMillis(readStalenessMillis);
  }

  /** Settings by name; starts at the defaults of {@link #KEYS}. */
  public static final class Builder {
    private List<String> hosts = List.of("127.0.0.1:9200");
    private boolean tls;
    private String trustStorePath = "";
    private String trustStorePassword = "";
    private String username = "";
    private String password = "";
    private String apiKey = "";
    private String indexPrefix = "sextant";
    private int shards = 1;
    private int replicas;
    private int requestTimeoutMillis = 30_000;
    private int bulkActions = 2000;
    private int bulkConcurrency = 2;
    private int minuteRetentionDays = 2;
    private int hourRetentionDays = 15;
    private int dayRetentionDays = 90;
    private int metadataCacheSeconds = 10;
    private int recordRetentionDays = 3;
    private int readCacheMegabytes = 32;
    private int readCacheMarginSeconds = 120;
    private int readStalenessMillis = 1000;

    private Builder() {}

    public Builder hosts(List<String> hosts) {
      this.hosts = List.copyOf(hosts);
      return this;
    }

    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    public Builder trustStorePath(String trustStorePath) {
      this.trustStorePath = trustStorePath;
      return this;
    }

    public Builder trustStorePassword(String trustStorePassword) {
      this.trustStorePassword = trustStorePassword;
      return this;
    }

    public Builder username(String username) {
      this.username = username;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    public Builder indexPrefix(String indexPrefix) {
      this.indexPrefix = indexPrefix;
      return this;
    }

    public Builder shards(int shards) {
      this.shards = shards;
      return this;
    }

    public Builder replicas(int replicas) {
      this.replicas = replicas;
      return this;
    }

    public Builder requestTimeoutMillis(int requestTimeoutMillis) {
      this.requestTimeoutMillis = requestTimeoutMillis;
      return this;
    }

    public Builder bulkActions(int bulkActions) {
      this.bulkActions = bulkActions;
      return this;
    }

    public Builder bulkConcurrency(int bulkConcurrency) {
      this.bulkConcurrency = bulkConcurrency;
      return this;
    }

    public Builder minuteRetentionDays(int minuteRetentionDays) {
      this.minuteRetentionDays = minuteRetentionDays;
      return this;
    }

    public Builder hourRetentionDays(int hourRetentionDays) {
      this.hourRetentionDays = hourRetentionDays;
      return this;
    }

    public Builder dayRetentionDays(int dayRetentionDays) {
      this.dayRetentionDays = dayRetentionDays;
      return this;
    }

    public Builder metadataCacheSeconds(int metadataCacheSeconds) {
      this.metadataCacheSeconds = metadataCacheSeconds;
      return this;
    }

    public Builder recordRetentionDays(int recordRetentionDays) {
      this.recordRetentionDays = recordRetentionDays;
      return this;
    }

    public Builder readCacheMegabytes(int readCacheMegabytes) {
      this.readCacheMegabytes = readCacheMegabytes;
      return this;
    }

    public Builder readCacheMarginSeconds(int readCacheMarginSeconds) {
      this.readCacheMarginSeconds = readCacheMarginSeconds;
      return this;
    }

    public Builder readStalenessMillis(int readStalenessMillis) {
      this.readStalenessMillis = readStalenessMillis;
      return this;
    }

    public ElasticsearchConfig build() {
      return new ElasticsearchConfig(hosts, tls, trustStorePath, trustStorePassword, username, password, apiKey,
          indexPrefix, shards, replicas, requestTimeoutMillis, bulkActions, bulkConcurrency, minuteRetentionDays,
          hourRetentionDays, dayRetentionDays, metadataCacheSeconds, recordRetentionDays, readCacheMegabytes,
          readCacheMarginSeconds, readStalenessMillis);
    }
  }
}
