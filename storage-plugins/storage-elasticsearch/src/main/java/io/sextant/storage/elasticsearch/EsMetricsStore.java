package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.time.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Partials as documents with their deterministic id, in time-based indices per step. */
final class EsMetricsStore implements MetricsStore {
  private static final int PAGE = 5_000;
  private final ElasticsearchClient client;
  private final Indices indices;

  EsMetricsStore(ElasticsearchClient client, Indices indices) {
    this.client = client;
    this.indices = indices;
  }

  @Override
  public void write(List<MetricPartial> partials) {
    List<Bulk.Doc> docs = new ArrayList<>(partials.size());
    for (MetricPartial p : partials) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("metric", p.metric());
      d.put("entity", p.entityId());
      d.put("step", p.step().name());
      d.put("bucket", p.bucket());
      d.put("writer", p.writerId());
      d.put("seq", p.sequence());
      d.put("v", p.values());
      if (p.sketch() != null) {
        d.put("sketch", ElasticsearchStorage.base64(p.sketch()));
      }
      d.put("pid", p.id());
      docs.add(new Bulk.Doc(indices.metrics(p.step(), p.bucket()), p.id(), d));
    }
    Bulk.index(client, docs);
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<MetricPartial> read(String metric, Collection<String> entityIds, Step step, long startBucket, long endBucket) {
    List<Query> filters = new ArrayList<>();
    filters.add(Query.of(q -> q.term(t -> t.field("metric").value(metric))));
    filters.add(Query.of(q -> q.term(t -> t.field("step").value(step.name()))));
    filters.add(Query.of(q -> q.range(r -> r.untyped(u -> u.field("bucket").gte(JsonData.of(startBucket)).lte(JsonData.of(endBucket))))));
    if (entityIds != null) {
      List<FieldValue> ids = entityIds.stream().map(FieldValue::of).toList();
      filters.add(Query.of(q -> q.terms(t -> t.field("entity").terms(v -> v.value(ids)))));
    }
    List<MetricPartial> out = new ArrayList<>();
    List<FieldValue> after = null;
    try {
      while (true) {
        List<FieldValue> searchAfter = after;
        SearchResponse<Map> r = client.search(s -> {
          s.index(indices.metricsPattern(step)).ignoreUnavailable(true).allowNoIndices(true)
              .query(q -> q.bool(b -> b.filter(filters))).size(PAGE)
              .sort(o -> o.field(f -> f.field("pid").order(SortOrder.Asc)));
          if (searchAfter != null) {
            s.searchAfter(searchAfter);
          }
          return s;
        }, Map.class);
        List<Hit<Map>> hits = r.hits().hits();
        for (Hit<Map> h : hits) {
          out.add(partial(h.source()));
        }
        if (hits.size() < PAGE) {
          return out;
        }
        after = hits.get(hits.size() - 1).sort();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + metric + " failed", e);
    }
  }

  private static MetricPartial partial(Map<String, Object> d) {
    List<?> v = (List<?>) d.get("v");
    long[] values = new long[v.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = ((Number) v.get(i)).longValue();
    }
    Object sketch = d.get("sketch");
    return new MetricPartial((String) d.get("metric"), (String) d.get("entity"), Step.valueOf((String) d.get("step")),
        ((Number) d.get("bucket")).longValue(), (String) d.get("writer"), ((Number) d.get("seq")).longValue(), values,
        sketch == null ? null : Base64.getDecoder().decode((String) sketch));
  }
}
