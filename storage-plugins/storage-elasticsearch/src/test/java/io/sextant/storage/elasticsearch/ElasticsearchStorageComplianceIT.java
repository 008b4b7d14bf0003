package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.net.FreePort;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.storage.ManagementStoreCompliance;
import io.sextant.testkit.storage.MetadataStoreCompliance;
import io.sextant.testkit.storage.MetricsStoreCompliance;
import io.sextant.testkit.storage.RecordStoreCompliance;
import io.sextant.testkit.storage.TopologyStoreCompliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The storage contract, facet by facet, held against one real Elasticsearch server; each test gets
 * its own index prefix. {@link Specifics} holds what only this backend has (paging, bulk requests,
 * the services cache, the edge store's memory bound).
 */
class ElasticsearchStorageComplianceIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();
  private static final AtomicInteger TESTS = new AtomicInteger();
  private static final int BULK_ACTIONS = 500;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private ElasticsearchStorage es;
  private String prefix;

  static ElasticsearchConfig config(String hostAndPort, String prefix) {
    return config(hostAndPort, prefix, 10);
  }

  static ElasticsearchConfig config(String hostAndPort, String prefix, int metadataCacheSeconds) {
    return ElasticsearchConfig.builder().hosts(List.of(hostAndPort)).indexPrefix(prefix).requestTimeoutMillis(30_000)
        .bulkActions(BULK_ACTIONS).bulkConcurrency(2).minuteRetentionDays(2).hourRetentionDays(15)
        .dayRetentionDays(90).recordRetentionDays(3).metadataCacheSeconds(metadataCacheSeconds).build();
  }

  /** A started store on a new prefix, remembered as {@link #es}. */
  StorageComponent newStorage() {
    prefix = "t" + TESTS.incrementAndGet();
    es = new ElasticsearchStorage(config(ES.hostAndPort(), prefix), registry);
    es.start();
    return es;
  }

  /** As the flusher does after each write cycle. */
  void publish() {
    es.publish();
  }

  @Nested
  class Metrics extends MetricsStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return ElasticsearchStorageComplianceIT.this.newStorage();
    }

    @Override
    protected void awaitWrites() {
      publish();
    }
  }

  @Nested
  class Topology extends TopologyStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return ElasticsearchStorageComplianceIT.this.newStorage();
    }

    @Override
    protected void awaitWrites() {
      publish();
    }
  }

  @Nested
  class Metadata extends MetadataStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return ElasticsearchStorageComplianceIT.this.newStorage();
    }

    @Override
    protected void awaitWrites() {
      publish();
    }
  }

  @Nested
  class Records extends RecordStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return ElasticsearchStorageComplianceIT.this.newStorage();
    }

    @Override
    protected void awaitWrites() {
      publish();
    }
  }

  /** Two {@link ElasticsearchStorage} objects on one prefix: two collectors. */
  @Nested
  class Management extends ManagementStoreCompliance {
    @Override
    protected StorageComponent newStorage() {
      return ElasticsearchStorageComplianceIT.this.newStorage();
    }

    @Override
    protected StorageComponent secondCollector() {
      ElasticsearchStorage other = new ElasticsearchStorage(config(ES.hostAndPort(), prefix), registry);
      other.start();
      return other;
    }
  }

  @Nested
  class Refusals extends WriteRefusals {
    @Override
    protected ElasticsearchStorage newStorage(SimpleMeterRegistry meters) {
      prefix = "t" + TESTS.incrementAndGet();
      es = new ElasticsearchStorage(config(ES.hostAndPort(), prefix), meters);
      es.start();
      return es;
    }

    @Override
    protected String prefix() {
      return prefix;
    }

    @Override
    protected String url() {
      return ES.httpUrl();
    }

    @AfterEach
    void close() {
      es.close();
    }
  }

  @Nested
  class Specifics {
    @BeforeEach
    void open() {
      newStorage();
    }

    @AfterEach
    void close() {
      es.close();
    }

    @Test
    void servicesReadAreReusedButOwnWritesShowAtOnceAndOthersWithinTheCacheTime() throws Exception {
      ElasticsearchStorage mine = new ElasticsearchStorage(config(ES.hostAndPort(), prefix, 1), registry);
      ElasticsearchStorage other = new ElasticsearchStorage(config(ES.hostAndPort(), prefix, 1), registry);
      mine.start();
      other.start();
      try {
        mine.metadata().upsertServices(List.of(service("YQ==.1", "a")));
        mine.publish();
        assertThat(mine.metadata().services()).extracting(ServiceMeta::name).containsExactly("a");
        other.metadata().upsertServices(List.of(service("Yg==.1", "b")));
        other.publish();
        // Another writer's service shows within the 1 s cache time (and a read's margin).
        Poll.until("b listed", Duration.ofSeconds(3),
            () -> mine.metadata().services().stream().map(ServiceMeta::name).toList(), List.of("a", "b")::equals);
        mine.metadata().upsertServices(List.of(service("Yw==.1", "c")));
        mine.publish();
        assertThat(mine.metadata().services()).extracting(ServiceMeta::name).containsExactly("a", "b", "c");
      } finally {
        mine.close();
        other.close();
      }
    }

    /** A start does no I/O, so a collector starts whatever Elasticsearch is doing; the first write installs. */
    @Test
    void startDoesNoIoAndTheFirstWriteInstallsTheTemplates() throws Exception {
      ElasticsearchStorage nobody = new ElasticsearchStorage(config("127.0.0.1:" + FreePort.any(), "away"), registry);
      long started = System.nanoTime();
      nobody.start();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
      assertThat(nobody.check().ok()).as("reported down, not thrown").isFalse();
      nobody.close();

      assertThat(templates()).as("none after start").doesNotContain(prefix + "-metrics");
      es.management().put("template", "t1", "{}", 0);
      assertThat(templates()).contains(prefix + "-metrics", prefix + "-management", prefix + "-records");
      assertThat(es.check().ok()).isTrue();
    }

    private String templates() throws Exception {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(ES.httpUrl() + "/_index_template/" + prefix + "-*")).build(), BodyHandlers.ofString());
      return r.body();
    }

    private static ServiceMeta service(String id, String name) {
      return new ServiceMeta(id, name, true, Set.of("MESH"), 202611221000L, 202611221000L);
    }

    @Test
    void metadataLastSeenBeforeTheOldestDayKeptIsForgotten() {
      // Day retention 90: on 2026-11-22 the oldest day kept is 2026-08-24.
      es.metadata().upsertServices(List.of(new ServiceMeta("YQ==.1", "gone", true, Set.of("MESH"),
          202608230900L, 202608232359L), service("Yg==.1", "alive")));
      es.metadata().upsertEndpoints(List.of(new EndpointMeta("YQ==.1_Lw==", "YQ==.1", "/", 202608230900L,
          202608230900L)));
      publish();
      assertThat(es.metadata().services()).hasSize(2);
      es.expire(20261122L);
      es.refresh();
      assertThat(es.metadata().services()).extracting(ServiceMeta::name).containsExactly("alive");
      assertThat(es.metadata().endpoints("YQ==.1", null, 10)).isEmpty();
    }

    @Test
    void edgeMinutesSurviveTheStoreForgettingThem() {
      // Room for two edge-hours: every write below forgets, and no minute may be lost by it.
      EsTopologyStore small = es.topologyStore(2);
      Edge a = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.SERVER, "http");
      Edge b = new Edge(Scope.SERVICE, "Yg==.1", "Yw==.1", DetectPoint.SERVER, "http");
      Edge c = new Edge(Scope.SERVICE, "Yw==.1", "YQ==.1", DetectPoint.SERVER, "http");
      small.write(List.of(a, b), 202611221000L);
      small.write(List.of(c), 202611221001L);
      small.write(List.of(a), 202611221002L);
      small.write(List.of(b, c), 202611221003L);
      es.refresh();
      assertThat(small.read(Scope.SERVICE, 202611221000L, 202611221000L)).containsExactlyInAnyOrder(a, b);
      assertThat(small.read(Scope.SERVICE, 202611221001L, 202611221001L)).containsExactly(c);
      assertThat(small.read(Scope.SERVICE, 202611221002L, 202611221002L)).containsExactly(a);
      assertThat(small.read(Scope.SERVICE, 202611221003L, 202611221003L)).containsExactlyInAnyOrder(b, c);
    }

    @Test
    void readsPageThroughMoreDocumentsThanOneSearchReturns() {
      List<PartialRow> rows = new ArrayList<>();
      for (int i = 0; i < 12_345; i++) { // more than two pages of 5,000
        rows.add(new PartialRow("CALL_SERVICE", "YQ==.1", Step.MINUTE, 202611221000L, "c" + i % 7, i,
            List.of(new PartialRow.Cell("service_cpm", new long[] {i, 0, 0}, null))));
      }
      es.metrics().write(rows);
      es.refresh();
      var read = es.metrics().read("service_cpm", List.of("YQ==.1"), Step.MINUTE, 202611221000L, 202611221000L);
      assertThat(read).hasSize(12_345);
      assertThat(read.stream().map(p -> p.writerId() + "/" + p.sequence()).distinct().count()).isEqualTo(12_345);
      assertThat(read.stream().mapToLong(p -> p.values()[0]).sum()).isEqualTo(12_345L * 12_344 / 2);
    }

    @Test
    void manyRowsGoInConcurrentBulkRequestsAndAreCounted() {
      List<PartialRow> rows = new ArrayList<>();
      for (int i = 0; i < 2_345; i++) {
        rows.add(new PartialRow("CALL_ENDPOINT", "YQ==.1_" + i, Step.MINUTE, 202611221000L + i % 3, "c1", i,
            List.of(new PartialRow.Cell("endpoint_cpm", new long[] {i, 0, 0}, null),
                new PartialRow.Cell("endpoint_sla", new long[] {i, i / 2, 0}, null))));
      }
      es.metrics().write(rows);
      es.refresh();

      var read = es.metrics().read("endpoint_sla", null, Step.MINUTE, 202611221000L, 202611221002L);
      assertThat(read).hasSize(2_345);
      assertThat(read.stream().mapToLong(p -> p.values()[1]).sum()).isEqualTo(rows.stream()
          .mapToLong(r -> r.cells().get(1).values()[1]).sum());
      assertThat(registry.get("sextant_es_documents_written").tag("kind", "metrics").counter().count())
          .isEqualTo(2_345);
      assertThat(registry.get("sextant_es_bulk_duration").timer().count()).isEqualTo(5); // ceil(2345 / 500)
      assertThat(registry.get("sextant_es_bulk_failures").counter().count()).isZero();
    }
  }
}
