package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonData;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Partials as documents with their deterministic id, in time-based indices per step. */
final class EsMetricsStore implements MetricsStore {
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
    Search.all(client, indices.metricsPattern(step), filters, "pid", d -> out.add(partial(d)));
    return out;
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
