package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.aggregations.StringTermsBucket;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.json.JsonData;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EdgeScope;
import io.sextant.api.storage.TopologyStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One document per edge and minute (id = edge key + minute, so rewrites are idempotent); a window
 * read is a terms aggregation over the edge keys of its minutes.
 */
final class EsTopologyStore implements TopologyStore {
  /** Distinct edges one query returns at most. */
  private static final int MAX_EDGES = 65_536;
  private final ElasticsearchClient client;
  private final Bulk bulk;
  private final Indices indices;

  EsTopologyStore(ElasticsearchClient client, Bulk bulk, Indices indices) {
    this.client = client;
    this.bulk = bulk;
    this.indices = indices;
  }

  static String key(Edge e) {
    return e.scope() + "|" + e.sourceId() + "|" + e.destId() + "|" + e.detectPoint() + "|" + e.component();
  }

  static Edge edge(String key) {
    String[] p = key.split("\\|", 5);
    return new Edge(EdgeScope.valueOf(p[0]), p[1], p[2], DetectPoint.valueOf(p[3]), p[4]);
  }

  @Override
  public void write(List<Edge> edges, long minuteBucket) {
    List<Bulk.Doc> docs = new ArrayList<>();
    for (Edge e : edges) {
      String key = key(e);
      docs.add(new Bulk.Doc(indices.topology(minuteBucket), key + "|" + minuteBucket,
          Map.of("key", key, "scope", e.scope().name(), "minute", minuteBucket)));
    }
    bulk.index("topology", docs);
  }

  @Override
  public List<Edge> read(EdgeScope scope, long startMinute, long endMinute) {
    try {
      SearchResponse<Void> r = client.search(s -> s.index(indices.topologyPattern()).ignoreUnavailable(true).allowNoIndices(true)
          .size(0)
          .query(q -> q.bool(b -> b
              .filter(f -> f.term(t -> t.field("scope").value(scope.name())))
              .filter(f -> f.range(g -> g.untyped(u -> u.field("minute").gte(JsonData.of(startMinute)).lte(JsonData.of(endMinute)))))))
          .aggregations("edges", a -> a.terms(t -> t.field("key").size(MAX_EDGES))), Void.class);
      List<Edge> out = new ArrayList<>();
      var agg = r.aggregations().get("edges");
      if (agg != null) {
        for (StringTermsBucket b : agg.sterms().buckets().array()) {
          out.add(edge(b.key().stringValue()));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("reading topology failed", e);
    }
  }
}
