package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonData;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.storage.CoveredPartials;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One document per partial row, with its deterministic id, in time-based indices per step. The
 * states of the row's metrics live in an unindexed object keyed by metric name; the indexed
 * {@code metrics} field lists them, so a read finds the rows holding a metric and fetches only
 * that metric's state. {@code written} is when the document was last sent (the writer's clock):
 * a cached read of one entity asks only for documents written since its previous read, less a
 * margin that covers the time from sending to searchable.
 */
final class EsMetricsStore implements MetricsStore {
  /** {@code writtenSince} of a search that wants everything in its range. */
  private static final long FULL = Long.MIN_VALUE;
  /** A series nobody read for this long is no longer followed (a dashboard refreshes far more often). */
  private static final long FOLLOW_IDLE_MILLIS = 5 * 60_000;
  /** The follower covers this many buckets past the newest one read, so a new minute is there. */
  private static final int FOLLOW_AHEAD = 2;
  /** Entities per follower search. */
  private static final int FOLLOW_CHUNK = 500;

  private final ElasticsearchClient client;
  private final Bulk bulk;
  private final Indices indices;
  /** Null when reads are not cached. */
  private final PartialCache cache;
  private final Map<PartialCache.SeriesKey, Fetch> inFlight = new ConcurrentHashMap<>();
  /** Counts this collector's publishes: a read never joins a search that began before the last one. */
  private final AtomicLong publishes = new AtomicLong();
  private final long marginMillis;
  private final long stalenessMillis;
  private final EsCompaction compaction;
  private final Counter fullReads;
  private final Counter deltaReads;
  private final Counter cachedReads;

  EsMetricsStore(ElasticsearchClient client, Bulk bulk, Indices indices) {
    this(client, bulk, indices, 0, 0, 0, new SimpleMeterRegistry());
  }

  /**
   * Single-entity reads keep up to {@code cacheBytes} of what they fetched (0: none) and then ask
   * for documents written after their previous read less {@code marginMillis}; with
   * {@code stalenessMillis}, a read answers from the cache alone if it is that fresh ({@link #follow}
   * keeps what was read lately so).
   */
  EsMetricsStore(ElasticsearchClient client, Bulk bulk, Indices indices, long cacheBytes, long marginMillis,
      long stalenessMillis, MeterRegistry registry) {
    this.client = client;
    this.bulk = bulk;
    this.indices = indices;
    this.cache = cacheBytes > 0 ? new PartialCache(cacheBytes) : null;
    this.marginMillis = marginMillis;
    this.stalenessMillis = cache == null ? 0 : stalenessMillis;
    this.compaction = new EsCompaction(client, indices, this::doc);
    String description = "single-entity metric reads: full (nothing cached), delta (documents written since) or"
        + " cached (answered from memory, the follower keeps it fresh)";
    this.fullReads = Counter.builder("sextant_es_metric_reads").tag("kind", "full").description(description)
        .register(registry);
    this.deltaReads = Counter.builder("sextant_es_metric_reads").tag("kind", "delta").description(description)
        .register(registry);
    this.cachedReads = Counter.builder("sextant_es_metric_reads").tag("kind", "cached").description(description)
        .register(registry);
    if (cache != null) {
      Gauge.builder("sextant_es_read_cache_bytes", cache, PartialCache::bytes)
          .description("estimated heap held by cached metric partials").register(registry);
    }
  }

  @Override
  public void write(List<PartialRow> rows) {
    long sent = System.currentTimeMillis(); // no later than Elasticsearch's copy's stamp
    bulk.index("metrics", rows, this::doc);
    if (cache != null) {
      cache.written(rows, sent);
    }
  }

  private Bulk.Doc doc(PartialRow r) {
    List<String> metrics = new ArrayList<>(r.cells().size());
    Map<String, Object> states = new LinkedHashMap<>();
    for (PartialRow.Cell c : r.cells()) {
      metrics.add(c.metric());
      states.put(c.metric(), c.sketch() == null ? Map.of("v", c.values())
          : Map.of("v", c.values(), "s", ElasticsearchStorage.base64(c.sketch())));
    }
    String id = r.id();
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("group", r.group());
    d.put("metrics", metrics);
    d.put("entity", r.entityId());
    d.put("step", r.step().name());
    d.put("bucket", r.bucket());
    d.put("writer", r.writerId());
    d.put("seq", r.sequence());
    d.put("rid", id);
    d.put("slot", PartialRow.slot(r.entityId()));
    if (r.closed()) {
      d.put("closed", true);
    }
    if (!r.covers().isEmpty()) {
      d.put("covers", r.covers());
    }
    d.put(Bulk.WRITTEN, 0L); // stamped when sent
    d.put("states", states);
    return new Bulk.Doc(indices.metrics(r.step(), r.bucket()), id, d);
  }

  @Override
  public Compaction compact(Step step, long bucket, int share, int shares, RowMerger merger) {
    return compaction.compact(step, bucket, share, shares, merger);
  }

  @Override
  public List<MetricPartial> read(String metric, Collection<String> entityIds, Step step, long startBucket,
      long endBucket) {
    if (cache == null || entityIds == null || entityIds.size() != 1) {
      List<MetricPartial> out = new ArrayList<>();
      search(metric, entityIds, step, startBucket, endBucket, FULL, 0).forEach(s -> out.add(s.partial()));
      return CoveredPartials.resolve(out);
    }
    PartialCache.SeriesKey key = new PartialCache.SeriesKey(entityIds.iterator().next(), step);
    List<MetricPartial> out = new ArrayList<>();
    for (PartialCache.Stamped s : current(key, startBucket, endBucket).partials().values()) {
      MetricPartial p = s.partial();
      if (p.metric().equals(metric) && p.bucket() >= startBucket && p.bucket() <= endBucket) {
        out.add(p);
      }
    }
    return CoveredPartials.resolve(out);
  }

  /**
   * Every metric of the entity in the window as of now, or as of at most the staleness bound ago
   * when the cache has it that fresh (other collectors' writes; this collector's own are added as
   * it writes them). A dashboard asks for several metrics of one entity at once: a read joins a
   * read of the same window already under way (whose answer is as of a few milliseconds before)
   * instead of asking Elasticsearch again, unless this collector published a write since that
   * search began: the query layer stops holding a written batch once it is published, so the
   * search must see it.
   */
  private PartialCache.Series current(PartialCache.SeriesKey key, long startBucket, long endBucket) {
    long now = System.currentTimeMillis();
    PartialCache.Series cached = cache.read(key, startBucket, endBucket, now);
    if (stalenessMillis > 0 && cached != null && cached.fromBucket() <= startBucket
        && endBucket <= cached.toBucket() && cached.asOfMillis() >= now - stalenessMillis) {
      cachedReads.increment();
      return cached;
    }
    Fetch mine = new Fetch(startBucket, endBucket, publishes.get(), new CompletableFuture<>());
    Fetch running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      if (running.startBucket() == startBucket && running.endBucket() == endBucket
          && running.publishes() == mine.publishes()) {
        try {
          return running.result().join();
        } catch (CompletionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : e;
        }
      }
      return fetch(key, startBucket, endBucket);
    }
    try {
      PartialCache.Series series = fetch(key, startBucket, endBucket);
      mine.result().complete(series);
      return series;
    } catch (RuntimeException e) {
      mine.result().completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(key, mine);
    }
  }

  private record Fetch(long startBucket, long endBucket, long publishes,
      CompletableFuture<PartialCache.Series> result) {}

  /** What this collector wrote is now searchable. */
  void published() {
    publishes.incrementAndGet();
  }

  private PartialCache.Series fetch(PartialCache.SeriesKey key, long startBucket, long endBucket) {
    long asOf = System.currentTimeMillis();
    List<String> entity = List.of(key.entityId());
    PartialCache.Series cached = cache.get(key);
    PartialCache.Series series;
    if (cached != null && cached.fromBucket() <= startBucket) {
      deltaReads.increment();
      series = cached.advance(startBucket, endBucket, asOf, search(null, entity, key.step(), startBucket, endBucket,
          cached.asOfMillis() - marginMillis, cached.toBucket()));
    } else {
      fullReads.increment();
      series = PartialCache.Series.fetched(startBucket, endBucket, asOf,
          search(null, entity, key.step(), startBucket, endBucket, FULL, 0));
    }
    return cache.put(key, series);
  }

  /**
   * One pass of the follower: the series read lately, brought up to now with one search per step
   * (and per {@link #FOLLOW_CHUNK} entities) for what was written since the oldest of them.
   */
  int follow() {
    if (stalenessMillis == 0) {
      return 0;
    }
    int searches = 0;
    long now = System.currentTimeMillis();
    Map<Step, List<PartialCache.Followed>> byStep = new EnumMap<>(Step.class);
    for (PartialCache.Followed f : cache.followed(now, FOLLOW_IDLE_MILLIS, FOLLOW_AHEAD)) {
      byStep.computeIfAbsent(f.key().step(), k -> new ArrayList<>()).add(f);
    }
    for (Map.Entry<Step, List<PartialCache.Followed>> step : byStep.entrySet()) {
      List<PartialCache.Followed> all = step.getValue();
      for (int i = 0; i < all.size(); i += FOLLOW_CHUNK) {
        List<PartialCache.Followed> chunk = all.subList(i, Math.min(all.size(), i + FOLLOW_CHUNK));
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        long since = Long.MAX_VALUE;
        long knownTo = Long.MAX_VALUE;
        List<String> entities = new ArrayList<>(chunk.size());
        for (PartialCache.Followed f : chunk) {
          from = Math.min(from, f.fromBucket());
          to = Math.max(to, f.toBucket());
          since = Math.min(since, f.series().asOfMillis() - marginMillis);
          knownTo = Math.min(knownTo, f.series().toBucket());
          entities.add(f.key().entityId());
        }
        Map<String, List<PartialCache.Stamped>> found = new HashMap<>();
        for (PartialCache.Stamped s : search(null, entities, step.getKey(), from, to, since, knownTo)) {
          found.computeIfAbsent(s.partial().entityId(), e -> new ArrayList<>()).add(s);
        }
        for (PartialCache.Followed f : chunk) {
          cache.put(f.key(), f.series().advance(f.fromBucket(), f.toBucket(), now,
              found.getOrDefault(f.key().entityId(), List.of())));
        }
        searches++;
      }
    }
    return searches;
  }

  /**
   * Every partial of {@code metric} (null: of every metric) in the range, with when it was
   * written; with {@code writtenSince} other than {@link #FULL}, only those written since then or
   * in buckets after {@code knownTo}.
   */
  private List<PartialCache.Stamped> search(String metric, Collection<String> entityIds, Step step, long startBucket,
      long endBucket, long writtenSince, long knownTo) {
    List<Query> filters = new ArrayList<>();
    if (metric != null) {
      filters.add(Query.of(q -> q.term(t -> t.field("metrics").value(metric))));
    }
    filters.add(Query.of(q -> q.term(t -> t.field("step").value(step.name()))));
    filters.add(Query.of(q -> q.range(r -> r.untyped(u -> u.field("bucket")
        .gte(JsonData.of(startBucket)).lte(JsonData.of(endBucket))))));
    if (entityIds != null) {
      List<FieldValue> ids = entityIds.stream().map(FieldValue::of).toList();
      filters.add(Query.of(q -> q.terms(t -> t.field("entity").terms(v -> v.value(ids)))));
    }
    if (writtenSince != FULL) {
      filters.add(Query.of(q -> q.bool(b -> b.minimumShouldMatch("1")
          .should(s -> s.range(r -> r.untyped(u -> u.field(Bulk.WRITTEN).gte(JsonData.of(writtenSince)))))
          .should(s -> s.range(r -> r.untyped(u -> u.field("bucket").gt(JsonData.of(knownTo))))))));
    }
    List<String> fields = List.of("entity", "bucket", "writer", "seq", "covers", Bulk.WRITTEN,
        metric == null ? "states" : "states." + metric);
    List<PartialCache.Stamped> out = new ArrayList<>();
    Search.all(client, indices.metrics(step, startBucket, endBucket), filters, fields, "rid", d -> {
      long written = d.get(Bulk.WRITTEN) instanceof Number n ? n.longValue() : 0;
      if (metric != null) {
        out.add(new PartialCache.Stamped(partial(metric, step, d), written));
      } else {
        for (Object m : ((Map<?, ?>) d.get("states")).keySet()) {
          out.add(new PartialCache.Stamped(partial((String) m, step, d), written));
        }
      }
    });
    return out;
  }

  private static MetricPartial partial(String metric, Step step, Map<String, Object> d) {
    PartialRow.Cell c = cell(metric, (Map<?, ?>) ((Map<?, ?>) d.get("states")).get(metric));
    return new MetricPartial(metric, (String) d.get("entity"), step, ((Number) d.get("bucket")).longValue(),
        (String) d.get("writer"), ((Number) d.get("seq")).longValue(), c.values(), c.sketch(),
        Boolean.TRUE.equals(d.get("closed")), covers(d));
  }

  /** One metric's state as a document holds it. */
  static PartialRow.Cell cell(String metric, Map<?, ?> state) {
    List<?> v = (List<?>) state.get("v");
    long[] values = new long[v.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = ((Number) v.get(i)).longValue();
    }
    Object sketch = state.get("s");
    return new PartialRow.Cell(metric, values, sketch == null ? null : Base64.getDecoder().decode((String) sketch));
  }

  @SuppressWarnings("unchecked")
  static List<String> covers(Map<String, Object> d) {
    Object covers = d.get("covers");
    return covers == null ? List.of() : (List<String>) covers;
  }
}
