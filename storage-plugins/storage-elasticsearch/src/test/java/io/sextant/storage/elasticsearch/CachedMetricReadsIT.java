package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.storage.MetricsStoreCompliance;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A collector's cached single-entity reads answer exactly what an uncached read of the same
 * Elasticsearch answers, while other collectors rewrite partials, add late ones to closed minutes
 * and restart (a new writer id), when many reads of one entity run at once (a dashboard), and after
 * the reader itself restarts. With a staleness bound, a followed series answers from memory, shows
 * the reader's own writes at once and others' within the bound; so does a topology window.
 */
class CachedMetricReadsIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();
  private static final String SERVICE = "c2VydmljZQ==.1";
  private static final String OTHER = "b3RoZXI=.1";
  private static final long FIRST = 202611221000L;
  private static final int MINUTES = 30;
  private static int tests;

  private final List<ElasticsearchStorage> opened = new ArrayList<>();
  private String prefix;
  private SimpleMeterRegistry cachedRegistry;
  private ElasticsearchStorage cached;
  private ElasticsearchStorage plain;

  @BeforeEach
  void open() {
    prefix = "cache" + ++tests;
    cachedRegistry = new SimpleMeterRegistry();
    cached = open(32, cachedRegistry);
    plain = open(0, new SimpleMeterRegistry());
  }

  private ElasticsearchStorage open(int cacheMegabytes, SimpleMeterRegistry registry) {
    return open(cacheMegabytes, 0, registry);
  }

  @AfterEach
  void close() {
    opened.forEach(ElasticsearchStorage::close);
  }

  private ElasticsearchStorage open(int cacheMegabytes, int stalenessMillis, SimpleMeterRegistry registry) {
    ElasticsearchStorage s = new ElasticsearchStorage(ElasticsearchStorageComplianceIT.config(ES.hostAndPort(), prefix)
        .toBuilder().readCacheMegabytes(cacheMegabytes).readStalenessMillis(stalenessMillis).build(), registry);
    s.start();
    opened.add(s);
    return s;
  }

  @Test
  void rewrittenLateAndRestartedWritersPartialsAreReadAsWithoutTheCache() throws Exception {
    ElasticsearchStorage writerA = open(0, new SimpleMeterRegistry());
    ElasticsearchStorage writerB = open(0, new SimpleMeterRegistry());
    writerA.metrics().write(rows("a", 0, 1));
    writerB.metrics().write(rows("b", 0, 2));
    writerA.publish();
    assertSameAsPlain(FIRST, FIRST + MINUTES - 1);
    assertThat(reads("full")).isEqualTo(1); // every metric of the entity at once
    assertThat(reads("delta")).isEqualTo(1); // the second metric

    // a rewrite of a closed minute (same id, more data), a late partial for it (new sequence),
    // a restarted writer (new id) and a newer minute.
    writerA.metrics().write(List.of(row("a", FIRST + 3, 0, 100)));
    writerB.metrics().write(List.of(row("b", FIRST + 3, 7, 5), row("b", FIRST + MINUTES, 0, 9)));
    writerB.metrics().write(List.of(row("b-restarted", FIRST + 1, 0, 11)));
    writerB.publish();
    assertSameAsPlain(FIRST, FIRST + MINUTES);
    assertThat(reads("delta")).isEqualTo(3);
    assertThat(cached.metrics().read("service_cpm", List.of(SERVICE), Step.MINUTE, FIRST + 3, FIRST + 3))
        .extracting(p -> p.writerId() + "/" + p.sequence() + "=" + p.values()[0])
        .containsExactlyInAnyOrder("a/0=100", "b/0=5", "b/7=5");

    // narrower windows, a wider one (a full read again) and one ending before the cached newest minute.
    assertSameAsPlain(FIRST + 10, FIRST + 20);
    assertSameAsPlain(FIRST, FIRST + 5);
    assertSameAsPlain(FIRST - 60, FIRST + MINUTES);

    // a dashboard: many reads of the entity at once, some joining a read under way.
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        String metric = i % 2 == 0 ? "service_cpm" : "service_percentile";
        answers.add(pool.submit(() -> canonical(cached.metrics().read(metric, List.of(SERVICE), Step.MINUTE, FIRST,
            FIRST + MINUTES))));
      }
      for (int i = 0; i < answers.size(); i++) {
        String metric = i % 2 == 0 ? "service_cpm" : "service_percentile";
        assertThat(answers.get(i).get()).isEqualTo(canonical(plain.metrics().read(metric, List.of(SERVICE),
            Step.MINUTE, FIRST, FIRST + MINUTES)));
      }
    } finally {
      pool.shutdownNow();
    }

    // the reader restarts: an empty cache reads everything again.
    cached = open(32, cachedRegistry);
    writerA.metrics().write(List.of(row("a", FIRST + 4, 1, 1)));
    writerA.publish();
    assertSameAsPlain(FIRST, FIRST + MINUTES);
    assertSameAsPlain(FIRST, FIRST + MINUTES);
  }

  @Test
  void cachedReadsAddUpAsUncachedWhileCollectorsWriteAndCompact() throws Exception {
    List<ElasticsearchStorage> writers = List.of(open(0, new SimpleMeterRegistry()), open(0, new SimpleMeterRegistry()),
        open(0, new SimpleMeterRegistry()));
    ElasticsearchStorage following = open(32, 200, new SimpleMeterRegistry());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong created = new AtomicLong();
    ExecutorService compactor = Executors.newSingleThreadExecutor();
    try {
      Future<?> compacting = compactor.submit(() -> {
        while (!stop.get()) {
          for (long m = FIRST; m < FIRST + MINUTES && !stop.get(); m++) {
            created.addAndGet(writers.get(0).metrics().compact(Step.MINUTE, m, 0, 1, MetricsStoreCompliance::sum)
                .rowsCreated());
          }
        }
        return null;
      });
      for (int round = 0; round < 6; round++) {
        // Each collector closes a new sequence of every minute (late data), and the newest minute grows.
        for (int w = 0; w < writers.size(); w++) {
          List<PartialRow> rows = new ArrayList<>();
          for (int m = 0; m < MINUTES; m++) {
            rows.add(closed(row("w" + w, FIRST + m, round, 1 + w + m + round)));
          }
          writers.get(w).metrics().write(rows);
          writers.get(w).publish();
        }
        for (int read = 0; read < 3; read++) {
          for (String metric : List.of("service_cpm", "service_percentile")) {
            assertThat(totals(cached, metric)).as("round %d, %s", round, metric).isEqualTo(totals(plain, metric));
          }
        }
        // The follower catches up with what the collectors published, covered partials dropped.
        Map<Long, List<Long>> expected = totals(plain, "service_cpm");
        Poll.until("the follower caught up in round " + round, Duration.ofSeconds(3),
            () -> totals(following, "service_cpm"), expected::equals);
      }
      stop.set(true);
      compacting.get();
    } finally {
      stop.set(true);
      compactor.shutdownNow();
    }
    assertThat(created.get()).as("compacted rows made while reading").isPositive();
    for (long m = FIRST; m < FIRST + MINUTES; m++) {
      writers.get(0).metrics().compact(Step.MINUTE, m, 0, 1, MetricsStoreCompliance::sum);
    }
    plain.publish();
    assertThat(totals(cached, "service_cpm")).isEqualTo(totals(plain, "service_cpm"));
    // Closed data is now one row per minute however many collectors wrote it.
    assertThat(plain.metrics().read("service_cpm", List.of(SERVICE), Step.MINUTE, FIRST, FIRST + MINUTES - 1))
        .hasSize(MINUTES).allMatch(p -> p.writerId().equals(MetricPartial.COMPACTED));
  }

  private static PartialRow closed(PartialRow r) {
    return new PartialRow(r.group(), r.entityId(), r.step(), r.bucket(), r.writerId(), r.sequence(), r.cells(), true,
        List.of());
  }

  /** Per bucket, the counters a query merges from what the store answers. */
  private static Map<Long, List<Long>> totals(ElasticsearchStorage storage, String metric) {
    Map<Long, List<Long>> out = new TreeMap<>();
    for (MetricPartial p : storage.metrics().read(metric, List.of(SERVICE), Step.MINUTE, FIRST, FIRST + MINUTES)) {
      List<Long> t = out.computeIfAbsent(p.bucket(), b -> new ArrayList<>(List.of(0L, 0L, 0L)));
      for (int i = 0; i < 3; i++) {
        t.set(i, t.get(i) + p.values()[i]);
      }
    }
    return out;
  }

  @Test
  void aFollowedSeriesAnswersFromMemoryWithOwnWritesAtOnceAndOthersWithinTheBound() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ElasticsearchStorage following = open(32, 300, registry);
    ElasticsearchStorage other = open(0, new SimpleMeterRegistry());
    other.metrics().write(rows("b", 0, 1));
    other.publish();
    long start = FIRST + 1;
    long end = FIRST + MINUTES - 1;
    assertThat(canonical(read(following, start, end))).isEqualTo(canonical(read(plain, start, end)));

    // Its own write shows at once, before it is even searchable, however many reads come.
    following.metrics().write(List.of(row("me", end, 0, 40)));
    assertThat(read(following, start, end)).extracting(p -> p.writerId() + "=" + p.values()[0]).contains("me=40");

    // Another collector's late partial, a rewrite and the next minute: the follower brings them
    // within the bound, and reads of the next window answer from memory without searching.
    other.metrics().write(List.of(row("b", FIRST + 3, 1, 5), row("b", end, 0, 77), row("b", end + 1, 0, 9)));
    other.publish();
    following.publish();
    awaitWholeFollowerPass(registry);
    double searches = kind(registry, "full") + kind(registry, "delta");
    double fromMemory = kind(registry, "cached");
    List<String> expected = canonical(read(plain, start + 1, end + 1));
    for (int i = 0; i < 20; i++) {
      assertThat(canonical(read(following, start + 1, end + 1))).isEqualTo(expected);
    }
    assertThat(kind(registry, "full") + kind(registry, "delta")).as("reads that searched").isEqualTo(searches);
    assertThat(kind(registry, "cached")).isEqualTo(fromMemory + 20);
    assertThat(registry.get("sextant_es_read_follows").tag("outcome", "failed").counter().count()).isZero();
  }

  @Test
  void aFollowedTopologyWindowAnswersFromMemoryWithOwnEdgesAtOnceAndOthersWithinTheBound() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ElasticsearchStorage following = open(32, 300, registry);
    ElasticsearchStorage other = open(0, new SimpleMeterRegistry());
    other.topology().write(List.of(edge("a", "b")), FIRST);
    other.publish();
    long end = FIRST + MINUTES - 1;
    assertThat(edges(following, end)).containsExactly("a>b");

    following.topology().write(List.of(edge("b", "c")), FIRST + 1);
    assertThat(edges(following, end)).as("its own edge, before it is searchable").containsExactly("a>b", "b>c");

    other.topology().write(List.of(edge("c", "d")), FIRST + 2);
    other.topology().write(List.of(edge("x", "y")), end + 1);
    other.publish();
    awaitWholeFollowerPass(registry);
    double searched = registry.get("sextant_es_topology_reads").tag("kind", "searched").counter().count();
    for (int i = 0; i < 20; i++) {
      assertThat(edges(following, end)).containsExactly("a>b", "b>c", "c>d");
    }
    assertThat(registry.get("sextant_es_topology_reads").tag("kind", "searched").counter().count())
        .as("reads that searched").isEqualTo(searched);
    assertThat(registry.get("sextant_es_topology_reads").tag("kind", "cached").counter().count())
        .isGreaterThanOrEqualTo(20);
  }

  private static Edge edge(String from, String to) {
    return new Edge(Scope.SERVICE, from, to, DetectPoint.SERVER, "http");
  }

  private static List<String> edges(ElasticsearchStorage storage, long end) {
    return storage.topology().read(Scope.SERVICE, FIRST, end).stream().map(e -> e.sourceId() + ">" + e.destId())
        .sorted().toList();
  }

  /** Waits for two more follower searches (one whole pass began after the call), within 2 s. */
  private static void awaitWholeFollowerPass(SimpleMeterRegistry registry) throws Exception {
    long start = System.nanoTime();
    double follows = follows(registry);
    Poll.until("two more follower searches", Duration.ofSeconds(3), () -> follows(registry) >= follows + 2);
    assertThat((System.nanoTime() - start) / 1_000_000).as("ms until a whole pass followed").isLessThan(2_000);
  }

  private static double follows(SimpleMeterRegistry registry) {
    return registry.get("sextant_es_read_follows").tag("outcome", "ok").counter().count();
  }

  private static List<MetricPartial> read(ElasticsearchStorage storage, long start, long end) {
    return storage.metrics().read("service_cpm", List.of(SERVICE), Step.MINUTE, start, end);
  }

  private static double kind(SimpleMeterRegistry registry, String kind) {
    return registry.get("sextant_es_metric_reads").tag("kind", kind).counter().count();
  }


  @Test
  void manyEntitiesAndWholeMetricReadsAreNotCached() {
    open(0, new SimpleMeterRegistry()).metrics().write(rows("a", 0, 1));
    plain.publish();
    assertThat(canonical(cached.metrics().read("service_cpm", List.of(SERVICE, OTHER), Step.MINUTE, FIRST,
        FIRST + MINUTES))).isEqualTo(canonical(plain.metrics().read("service_cpm", List.of(SERVICE, OTHER),
            Step.MINUTE, FIRST, FIRST + MINUTES))).hasSize(2 * MINUTES);
    assertThat(canonical(cached.metrics().read("service_cpm", null, Step.MINUTE, FIRST, FIRST + MINUTES)))
        .hasSize(2 * MINUTES);
    assertThat(reads("full") + reads("delta")).isZero();
  }

  @Test
  void metricsIndicesOfAnOlderVersionGetTheWrittenField() throws Exception {
    String old = prefix + "-old";
    String index = old + "-metrics-minute-" + FIRST / 10_000;
    String mapping = """
        {"mappings":{"dynamic":"strict","properties":{
          "entity":{"type":"keyword"},"step":{"type":"keyword"},
          "bucket":{"type":"long"},"writer":{"type":"keyword"},"seq":{"type":"long"},
          "group":{"type":"keyword"},"metrics":{"type":"keyword"},"rid":{"type":"keyword"},
          "states":{"type":"object","enabled":false}}}}""";
    HttpResponse<String> created = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
        HttpRequest.newBuilder(URI.create(ES.httpUrl() + "/" + index)).header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(mapping)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    ElasticsearchStorage upgraded = new ElasticsearchStorage(ElasticsearchStorageComplianceIT.config(
        ES.hostAndPort(), old), new SimpleMeterRegistry());
    upgraded.start();
    opened.add(upgraded);
    upgraded.metrics().write(rows("a", 0, 1));
    upgraded.publish();
    assertThat(upgraded.metrics().read("service_cpm", List.of(SERVICE), Step.MINUTE, FIRST, FIRST + MINUTES))
        .hasSize(MINUTES);
  }

  private double reads(String kind) {
    return kind(cachedRegistry, kind);
  }

  private void assertSameAsPlain(long start, long end) {
    for (String metric : List.of("service_cpm", "service_percentile")) {
      List<String> expected = canonical(plain.metrics().read(metric, List.of(SERVICE), Step.MINUTE, start, end));
      assertThat(canonical(cached.metrics().read(metric, List.of(SERVICE), Step.MINUTE, start, end)))
          .as("%s %d..%d", metric, start, end).isEqualTo(expected);
    }
  }

  private static List<String> canonical(List<MetricPartial> partials) {
    return partials.stream().map(p -> p.metric() + " " + p.entityId() + " " + p.step() + " " + p.bucket() + " "
        + p.writerId() + " " + p.sequence() + " " + Arrays.toString(p.values()) + " "
        + (p.sketch() == null ? "-" : Base64.getEncoder().encodeToString(p.sketch()))).sorted().toList();
  }

  /** Every minute of the window for both services, from one writer, seq {@code seq}. */
  private static List<PartialRow> rows(String writer, long seq, long base) {
    List<PartialRow> rows = new ArrayList<>();
    for (int m = 0; m < MINUTES; m++) {
      rows.add(row(writer, FIRST + m, seq, base + m));
      rows.add(new PartialRow("CALL_SERVICE", OTHER, Step.MINUTE, FIRST + m, writer, seq,
          List.of(new PartialRow.Cell("service_cpm", new long[] {base, 0, 0}, null))));
    }
    return rows;
  }

  private static PartialRow row(String writer, long bucket, long seq, long calls) {
    return new PartialRow("CALL_SERVICE", SERVICE, Step.MINUTE, bucket, writer, seq, List.of(
        new PartialRow.Cell("service_cpm", new long[] {calls, 0, 0}, null),
        new PartialRow.Cell("service_percentile", new long[] {calls, 1, 2}, new byte[] {1, 2, (byte) calls})));
  }
}
