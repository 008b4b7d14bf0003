package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * Reads every document matching filters, page by page ({@code search_after} on a unique field).
 * The request is built with the typed client's query builders; the answer is read with Jackson
 * over the low-level client, asking only for the sources and sort values: the typed client's
 * decoding of thousands of hits was the largest part of a query's CPU in Sextant.
 */
final class Search {
  private static final int PAGE = 5_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private Search() {}

  static void all(ElasticsearchClient client, String index, List<Query> filters, String uniqueField,
      Consumer<Map<String, Object>> each) {
    all(client, index, filters, List.of(), uniqueField, each);
  }

  /** As above, fetching only {@code fields} of each document's source (all when empty). */
  static void all(ElasticsearchClient client, String index, List<Query> filters, List<String> fields,
      String uniqueField, Consumer<Map<String, Object>> each) {
    sorted(client, index, filters, fields, List.of(SortOptions.of(o -> o.field(f -> f.field(uniqueField)
        .order(SortOrder.Asc)))), Integer.MAX_VALUE, each);
  }

  /**
   * The first {@code limit} documents matching filters in {@code sort} order, which must end with a
   * unique field (it pages with {@code search_after}).
   */
  static void sorted(ElasticsearchClient client, String index, List<Query> filters, List<String> fields,
      List<SortOptions> sort, int limit, Consumer<Map<String, Object>> each) {
    RestClient rest = ((RestClientTransport) client._transport()).restClient();
    int page = Math.min(PAGE, limit);
    SearchRequest search = SearchRequest.of(s -> {
      s.query(q -> q.bool(b -> b.filter(filters))).size(page).sort(sort).trackTotalHits(t -> t.enabled(false));
      if (!fields.isEmpty()) {
        s.source(src -> src.filter(f -> f.includes(fields)));
      }
      return s;
    });
    try {
      ObjectNode body = (ObjectNode) JSON.readTree(JsonpUtils.toJsonString(search, client._jsonpMapper()));
      int seen = 0;
      while (true) {
        Request request = request(index, "hits.hits._source,hits.hits.sort", body.toString());
        List<Hit> hits;
        try (InputStream in = perform(rest, request).getEntity().getContent()) {
          hits = JSON.readValue(in, Page.class).hits().hits();
        }
        for (Hit h : hits) {
          if (seen++ == limit) {
            return;
          }
          each.accept(h._source());
        }
        if (hits.size() < page || seen >= limit) {
          return;
        }
        body.set("search_after", JSON.valueToTree(hits.get(hits.size() - 1).sort()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("search of " + index + " failed: " + reason(e), e);
    }
  }

  /** Tries at most this often when no shard could answer yet. */
  private static final int ATTEMPTS = 3;

  /**
   * Performs a search, retrying briefly when Elasticsearch answers 503: a day's index created a
   * moment ago has no started shard yet, and a query arriving then should not fail.
   */
  static Response perform(RestClient rest, Request request) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return rest.performRequest(request);
      } catch (ResponseException e) {
        if (e.getResponse().getStatusLine().getStatusCode() != 503 || attempt == ATTEMPTS) {
          throw e;
        }
        try {
          Thread.sleep(100L * attempt * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Elasticsearch's reason, shortened, for an error a user reads. */
  static String reason(IOException e) {
    String message = String.valueOf(e.getMessage());
    return message.length() <= 300 ? message : message.substring(0, 300) + "...";
  }

  /**
   * A low-level search of {@code index} (a pattern may match nothing yet) whose answer keeps only
   * {@code filterPath}.
   */
  static Request request(String index, String filterPath, String body) {
    Request request = new Request("POST", "/" + index + "/_search");
    request.addParameter("ignore_unavailable", "true");
    request.addParameter("allow_no_indices", "true");
    request.addParameter("filter_path", filterPath);
    request.setJsonEntity(body);
    return request;
  }

  /** The parts of a search answer that {@code filter_path} keeps; all absent when nothing matched. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Page(Hits hits) {
    // Not unused: Jackson builds every Page through it, and it turns an absent "hits" into an empty one.
    @SuppressWarnings("UnusedMethod")
    Page {
      hits = hits == null ? new Hits(List.of()) : hits;
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Hits(List<Hit> hits) {
    Hits {
      hits = hits == null ? List.of() : hits;
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Hit(Map<String, Object> _source, List<Object> sort) {}
}
