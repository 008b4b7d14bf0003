package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** Reads every document matching filters, page by page ({@code search_after} on a unique field). */
final class Search {
  private static final int PAGE = 5_000;

  private Search() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static void all(ElasticsearchClient client, String index, List<Query> filters, String uniqueField,
      Consumer<Map<String, Object>> each) {
    all(client, index, filters, List.of(), uniqueField, each);
  }

  /** As above, fetching only {@code fields} of each document's source (all when empty). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static void all(ElasticsearchClient client, String index, List<Query> filters, List<String> fields,
      String uniqueField, Consumer<Map<String, Object>> each) {
    List<FieldValue> after = null;
    try {
      while (true) {
        List<FieldValue> searchAfter = after;
        SearchResponse<Map> r = client.search(s -> {
          s.index(index).ignoreUnavailable(true).allowNoIndices(true)
              .query(q -> q.bool(b -> b.filter(filters))).size(PAGE)
              .sort(o -> o.field(f -> f.field(uniqueField).order(SortOrder.Asc)));
          if (!fields.isEmpty()) {
            s.source(src -> src.filter(f -> f.includes(fields)));
          }
          if (searchAfter != null) {
            s.searchAfter(searchAfter);
          }
          return s;
        }, Map.class);
        List<Hit<Map>> hits = r.hits().hits();
        for (Hit<Map> h : hits) {
          each.accept(h.source());
        }
        if (hits.size() < PAGE) {
          return;
        }
        after = hits.get(hits.size() - 1).sort();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("search of " + index + " failed", e);
    }
  }
}
