package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonData;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.RecordStore;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One document per record, id {@code kind|id}, in the daily index of its UTC day, so retention drops
 * whole days and a read asks only the days of its range. {@code kind}, {@code id}, {@code entity}
 * and {@code tags} are keywords, {@code time} a long (indices are sorted by it, newest first, so a
 * newest-first read stops early); the body is an unindexed binary field. A record rewritten with
 * a time on another UTC day lands in that day's index and does not replace the first copy.
 */
final class EsRecordStore implements RecordStore {
  private static final List<SortOptions> NEWEST_FIRST = List.of(
      SortOptions.of(o -> o.field(f -> f.field("time").order(SortOrder.Desc))),
      SortOptions.of(o -> o.field(f -> f.field("id").order(SortOrder.Desc))));
  private final ElasticsearchClient client;
  private final Bulk bulk;
  private final Indices indices;

  EsRecordStore(ElasticsearchClient client, Bulk bulk, Indices indices) {
    this.client = client;
    this.bulk = bulk;
    this.indices = indices;
  }

  @Override
  public void write(List<StoredRecord> records) {
    bulk.index("records", records, this::doc);
  }

  private Bulk.Doc doc(StoredRecord r) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", r.kind());
    d.put("id", r.id());
    d.put("entity", r.entityId());
    d.put("time", r.timeMillis());
    d.put("tags", r.tags());
    d.put("body", ElasticsearchStorage.base64(r.body()));
    return new Bulk.Doc(indices.records(r.timeMillis()), r.kind() + "|" + r.id(), d);
  }

  @Override
  public List<StoredRecord> read(RecordQuery q) {
    List<StoredRecord> out = new ArrayList<>();
    if ((q.entityIds() != null && q.entityIds().isEmpty()) || q.startMillis() > q.endMillis()) {
      return out;
    }
    List<Query> filters = new ArrayList<>();
    filters.add(Query.of(f -> f.term(t -> t.field("kind").value(q.kind()))));
    filters.add(Query.of(f -> f.range(r -> r.untyped(u -> u.field("time").gte(JsonData.of(q.startMillis()))
        .lte(JsonData.of(q.endMillis()))))));
    if (q.entityIds() != null) {
      List<FieldValue> ids = q.entityIds().stream().map(FieldValue::of).toList();
      filters.add(Query.of(f -> f.terms(t -> t.field("entity").terms(v -> v.value(ids)))));
    }
    for (String tag : q.tags()) {
      filters.add(Query.of(f -> f.term(t -> t.field("tags").value(tag))));
    }
    Search.sorted(client, indices.records(q.startMillis(), q.endMillis()), filters, List.of(), NEWEST_FIRST,
        q.limit(), d -> out.add(record(d)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static StoredRecord record(Map<String, Object> d) {
    return new StoredRecord((String) d.get("kind"), (String) d.get("id"), (String) d.get("entity"),
        ((Number) d.get("time")).longValue(), (List<String>) d.get("tags"),
        Base64.getDecoder().decode((String) d.get("body")));
  }
}
