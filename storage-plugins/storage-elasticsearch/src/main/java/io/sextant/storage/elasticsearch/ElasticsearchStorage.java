package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.cluster.HealthResponse;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.TopologyStore;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.elasticsearch.client.RestClientBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production store. Neither the constructor nor {@link #start()} does I/O: the first write
 * creates the index templates (idempotently, {@link IndexTemplates}). Every write is a {@code
 * _bulk} with deterministic ids, so the flusher can retry any batch; nothing is read, modified and
 * written back.
 */
public final class ElasticsearchStorage implements StorageComponent {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchStorage.class);
  private final ElasticsearchConfig config;
  private final Indices indices;
  /** Edge-hours whose minutes the topology store remembers (about 100 bytes each). */
  static final int MAX_EDGE_HOURS = 200_000;
  private final String writerId = UUID.randomUUID().toString();
  private final MeterRegistry registry;
  private RestClient rest;
  private IndexTemplates templates;
  private Bulk bulk;
  private ElasticsearchClient client;
  private EsMetricsStore metrics;
  /** Null unless reads may be stale. */
  private ReadFollower follower;
  private EsTopologyStore topology;
  private EsMetadataStore metadata;
  private EsRecordStore records;
  private EsManagementStore management;

  public ElasticsearchStorage(ElasticsearchConfig config, MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
    this.indices = new Indices(config.indexPrefix());
  }

  @Override
  public synchronized void start() {
    if (client != null) {
      return;
    }
    rest = restClient();
    client = new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
    // No I/O here: the first write installs the templates, so a start never waits on Elasticsearch.
    templates = new IndexTemplates(client, indices, config);
    bulk = new Bulk(client, templates, config.bulkActions(), config.bulkConcurrency(), indices.parked(), registry);
    long cacheBytes = config.readCacheMegabytes() * 1024L * 1024L;
    // Three quarters of the read cache for metric series, a quarter for topology windows when followed.
    long topologyBytes = config.readStalenessMillis() > 0 ? cacheBytes / 4 : 0;
    metrics = new EsMetricsStore(client, bulk, indices, cacheBytes - topologyBytes,
        config.readCacheMarginSeconds() * 1000L, config.readStalenessMillis(), registry);
    topology = new EsTopologyStore(rest, bulk, indices, writerId, MAX_EDGE_HOURS, topologyBytes,
        config.readStalenessMillis(), registry);
    if (cacheBytes > 0 && config.readStalenessMillis() > 0) {
      follower = new ReadFollower(List.of(metrics::follow, topology::follow),
          Math.max(50, config.readStalenessMillis() / 2), registry);
    }
    metadata = new EsMetadataStore(client, bulk, indices, writerId, config.metadataCacheSeconds());
    records = new EsRecordStore(client, bulk, indices);
    management = new EsManagementStore(client, templates, indices);
  }

  private RestClient restClient() {
    HttpHost[] hosts = config.hosts().stream().map(h -> {
      int colon = h.lastIndexOf(':');
      return new HttpHost(h.substring(0, colon), Integer.parseInt(h.substring(colon + 1)),
          config.tls() ? "https" : "http");
    }).toArray(HttpHost[]::new);
    RestClientBuilder b = RestClient.builder(hosts)
        .setRequestConfigCallback(r -> r.setConnectTimeout(config.requestTimeoutMillis())
            .setSocketTimeout(config.requestTimeoutMillis()));
    if (!config.apiKey().isEmpty()) {
      b.setDefaultHeaders(new Header[] {new BasicHeader("Authorization", "ApiKey " + config.apiKey())});
    }
    SSLContext ssl = config.tls() && !config.trustStorePath().isEmpty() ? sslContext() : null;
    b.setHttpClientConfigCallback(http -> {
      if (!config.username().isEmpty()) {
        BasicCredentialsProvider credentials = new BasicCredentialsProvider();
        credentials.setCredentials(AuthScope.ANY,
            new UsernamePasswordCredentials(config.username(), config.password()));
        http.setDefaultCredentialsProvider(credentials);
      }
      if (ssl != null) {
        http.setSSLContext(ssl);
      }
      return http;
    });
    return b.build();
  }

  private SSLContext sslContext() {
    try (InputStream in = Files.newInputStream(Path.of(config.trustStorePath()))) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, config.trustStorePassword().toCharArray());
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load trust store " + config.trustStorePath() + ": " + e.getMessage(), e);
    }
  }


  @Override
  public CheckResult check() {
    try {
      HealthResponse h = client().cluster().health();
      if (h.status().jsonValue().equals("red")) {
        return CheckResult.failed("Elasticsearch cluster is red");
      }
      templates.ensure(); // a cluster that answers but refuses them cannot take writes either
      return CheckResult.OK;
    } catch (Exception e) {
      return CheckResult.failed("Elasticsearch unreachable: " + e.getMessage());
    }
  }

  @Override
  public void applyRetention(TimeBuckets buckets) {
    expire(TimeBuckets.rollup(buckets.currentMinuteBucket(), Step.DAY));
  }

  /**
   * Deletes time-based indices past their retention, and metadata documents last seen before the
   * oldest day kept: an entity that stopped reporting (or a flood of names) does not stay listed,
   * nor cost every read of the services list, for ever.
   */
  public void expire(long todayDay) {
    try {
      var all = client().indices().get(g -> g.index(indices.prefix() + "-*").ignoreUnavailable(true)).result().keySet();
      for (String index : all) {
        long cutoff = IndexRetention.cutoff(index, indices.prefix(), todayDay, config);
        if (cutoff >= 0) {
          client().indices().delete(d -> d.index(index));
        }
      }
      long oldestMinuteKept = Long.parseLong(LocalDate.parse(Long.toString(todayDay), DateTimeFormatter.BASIC_ISO_DATE)
          .minusDays(config.dayRetentionDays()).format(DateTimeFormatter.BASIC_ISO_DATE)) * 10_000;
      if (all.contains(indices.metadata())) {
        expireMetadata(oldestMinuteKept);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("expiring indices failed", e);
    }
  }

  /**
   * Deletes the metadata documents last seen before {@code oldestMinuteKept}, a thousand at a time
   * (a search and a _bulk of deletes: _delete_by_query needs the reindex module, which a minimal
   * cluster may not have).
   */
  private void expireMetadata(long oldestMinuteKept) throws IOException {
    List<String> ids = new ArrayList<>();
    long[] gone = {0};
    Consumer<List<String>> delete = batch -> {
      try {
        client().bulk(b -> {
          batch.forEach(id -> b.operations(o -> o.delete(d -> d.index(indices.metadata()).id(id))));
          return b;
        });
        gone[0] += batch.size();
      } catch (IOException e) {
        throw new UncheckedIOException("expiring metadata failed", e);
      }
      batch.clear();
    };
    Search.all(client(), indices.metadata(), List.of(Query.of(q -> q.range(r -> r.untyped(u -> u.field("lastSeen")
        .lt(JsonData.of(oldestMinuteKept)))))), List.of("docId"), "docId", d -> {
          ids.add((String) d.get("docId"));
          if (ids.size() == 1000) {
            delete.accept(ids);
          }
        });
    if (!ids.isEmpty()) {
      delete.accept(ids);
    }
    if (gone[0] > 0) {
      if (metadata != null) {
        metadata.published(); // the services list read before is stale
      }
      LOG.info("forgot {} metadata documents last seen before {}", gone[0], oldestMinuteKept);
    }
  }

  /** A second topology store over this connection, with its own memory bound (tests). */
  EsTopologyStore topologyStore(int maxEdgeHours) {
    client();
    return new EsTopologyStore(rest, bulk, indices, UUID.randomUUID().toString(), maxEdgeHours);
  }

  /** Refreshes this prefix's indices: what the flusher wrote becomes searchable. */
  @Override
  public void publish() {
    refresh();
    if (metadata != null) {
      metadata.published();
    }
    if (metrics != null) {
      metrics.published();
    }
  }

  /** Makes all writes visible to searches. */
  public void refresh() {
    try {
      client().indices().refresh(r -> r.index(indices.prefix() + "-*"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ElasticsearchClient client() {
    if (client == null) {
      throw new IllegalStateException("Elasticsearch storage not started");
    }
    return client;
  }

  @Override
  public MetricsStore metrics() {
    client();
    return metrics;
  }

  @Override
  public TopologyStore topology() {
    client();
    return topology;
  }

  @Override
  public MetadataStore metadata() {
    client();
    return metadata;
  }

  @Override
  public RecordStore records() {
    client();
    return records;
  }

  @Override
  public ManagementStore management() {
    client();
    return management;
  }

  @Override
  public Retention retention() {
    return new Retention(config.minuteRetentionDays(), config.hourRetentionDays(),
        config.dayRetentionDays(), config.recordRetentionDays());
  }

  @Override
  public synchronized void close() {
    if (rest != null) {
      if (follower != null) {
        follower.close();
        follower = null;
      }
      bulk.close();
      try {
        rest.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      rest = null;
      client = null;
    }
  }

  static String base64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }
}
