package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Indexes documents by id in {@code _bulk} requests of bounded size; any failed item fails the call. */
final class Bulk {
  private static final int MAX_OPERATIONS = 5_000;

  private Bulk() {}

  record Doc(String index, String id, Map<String, Object> source) {}

  static void index(ElasticsearchClient client, List<Doc> docs) {
    for (int from = 0; from < docs.size(); from += MAX_OPERATIONS) {
      List<BulkOperation> ops = new ArrayList<>();
      for (Doc d : docs.subList(from, Math.min(docs.size(), from + MAX_OPERATIONS))) {
        ops.add(BulkOperation.of(o -> o.index(i -> i.index(d.index()).id(d.id()).document(d.source()))));
      }
      BulkResponse r;
      try {
        r = client.bulk(b -> b.operations(ops));
      } catch (IOException e) {
        throw new UncheckedIOException("bulk request failed", e);
      }
      if (r.errors()) {
        for (BulkResponseItem item : r.items()) {
          if (item.error() != null) {
            // The writes are idempotent: the caller retries the whole batch.
            throw new IllegalStateException("bulk item failed (" + item.status() + "): " + item.error().reason());
          }
        }
      }
    }
  }
}
