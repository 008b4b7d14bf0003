package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonData;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One document per partial row, with its deterministic id, in time-based indices per step. The
 * states of the row's metrics live in an unindexed object keyed by metric name; the indexed
 * {@code metrics} field lists them, so a read finds the rows holding a metric and fetches only
 * that metric's state.
 */
final class EsMetricsStore implements MetricsStore {
  private final ElasticsearchClient client;
  private final Bulk bulk;
  private final Indices indices;

  EsMetricsStore(ElasticsearchClient client, Bulk bulk, Indices indices) {
    this.client = client;
    this.bulk = bulk;
    this.indices = indices;
  }

  @Override
  public void write(List<PartialRow> rows) {
    bulk.index("metrics", rows, this::doc);
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
    d.put("states", states);
    return new Bulk.Doc(indices.metrics(r.step(), r.bucket()), id, d);
  }

  @Override
  public List<MetricPartial> read(String metric, Collection<String> entityIds, Step step, long startBucket,
      long endBucket) {
    List<Query> filters = new ArrayList<>();
    filters.add(Query.of(q -> q.term(t -> t.field("metrics").value(metric))));
    filters.add(Query.of(q -> q.term(t -> t.field("step").value(step.name()))));
    filters.add(Query.of(q -> q.range(r -> r.untyped(u -> u.field("bucket")
        .gte(JsonData.of(startBucket)).lte(JsonData.of(endBucket))))));
    if (entityIds != null) {
      List<FieldValue> ids = entityIds.stream().map(FieldValue::of).toList();
      filters.add(Query.of(q -> q.terms(t -> t.field("entity").terms(v -> v.value(ids)))));
    }
    List<String> fields = List.of("entity", "bucket", "writer", "seq", "states." + metric);
    List<MetricPartial> out = new ArrayList<>();
    Search.all(client, indices.metricsPattern(step), filters, fields, "rid", d -> out.add(partial(metric, step, d)));
    return out;
  }

  private static MetricPartial partial(String metric, Step step, Map<String, Object> d) {
    Map<?, ?> state = (Map<?, ?>) ((Map<?, ?>) d.get("states")).get(metric);
    List<?> v = (List<?>) state.get("v");
    long[] values = new long[v.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = ((Number) v.get(i)).longValue();
    }
    Object sketch = state.get("s");
    return new MetricPartial(metric, (String) d.get("entity"), step, ((Number) d.get("bucket")).longValue(),
        (String) d.get("writer"), ((Number) d.get("seq")).longValue(), values,
        sketch == null ? null : Base64.getDecoder().decode((String) sketch));
  }
}
