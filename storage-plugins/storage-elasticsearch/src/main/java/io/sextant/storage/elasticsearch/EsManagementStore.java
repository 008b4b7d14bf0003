package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.OpType;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.Result;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.elasticsearch.client.ResponseException;

/**
 * Documents in one index, id {@code kind|id}. Elasticsearch itself decides every version race: a
 * create is an {@code op_type=create} (refused if the id exists), an update reads the document and
 * writes only if its sequence number and primary term are still those read ({@code if_seq_no},
 * {@code if_primary_term}), so two collectors can never both replace one version. Writes refresh
 * the index, so {@link #list} sees them at once; these documents change rarely.
 */
final class EsManagementStore implements ManagementStore {
  private static final int CONFLICT = 409;
  private static final int NOT_FOUND = 404;
  private final ElasticsearchClient client;
  private final IndexTemplates templates;
  private final Indices indices;

  EsManagementStore(ElasticsearchClient client, IndexTemplates templates, Indices indices) {
    this.client = client;
    this.templates = templates;
    this.indices = indices;
  }

  private static String docId(String kind, String id) {
    return kind + "|" + id;
  }

  @Override
  public Optional<ManagedDocument> get(String kind, String id) {
    return current(kind, id).map(r -> document(r.source()));
  }

  /** The document as stored with its sequence number and term (a real-time get: no refresh needed). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Optional<GetResponse<Map<String, Object>>> current(String kind, String id) {
    try {
      GetResponse<Map> r = client.get(g -> g.index(indices.management()).id(docId(kind, id)), Map.class);
      return r.found() ? Optional.of((GetResponse<Map<String, Object>>) (GetResponse) r) : Optional.empty();
    } catch (ElasticsearchException | IOException e) {
      if (status(e) == NOT_FOUND) { // no index yet
        return Optional.empty();
      }
      throw failure("reading", kind, id, e);
    }
  }

  @Override
  public List<ManagedDocument> list(String kind) {
    List<ManagedDocument> out = new ArrayList<>();
    Search.all(client, indices.management(), List.of(Query.of(q -> q.term(t -> t.field("kind").value(kind)))), "id",
        d -> out.add(document(d)));
    return out;
  }

  @Override
  public ManagedDocument put(String kind, String id, String body, long expectedVersion) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", kind);
    d.put("id", id);
    d.put("version", expectedVersion + 1);
    d.put("updated", System.currentTimeMillis());
    d.put("body", body);
    try {
      templates.ensure();
      if (expectedVersion == 0) {
        client.index(i -> i.index(indices.management()).id(docId(kind, id)).opType(OpType.Create)
            .refresh(Refresh.True).document(d));
      } else {
        GetResponse<Map<String, Object>> current = current(kind, id)
            .filter(r -> ((Number) r.source().get("version")).longValue() == expectedVersion)
            .orElseThrow(() -> new VersionConflictException(kind, id, expectedVersion));
        client.index(i -> i.index(indices.management()).id(docId(kind, id)).ifSeqNo(current.seqNo())
            .ifPrimaryTerm(current.primaryTerm()).refresh(Refresh.True).document(d));
      }
    } catch (ElasticsearchException | IOException e) {
      if (status(e) == CONFLICT) {
        throw new VersionConflictException(kind, id, expectedVersion);
      }
      throw failure("writing", kind, id, e);
    }
    return document(d);
  }

  @Override
  public boolean delete(String kind, String id) {
    try {
      return client.delete(r -> r.index(indices.management()).id(docId(kind, id)).refresh(Refresh.True)).result()
          == Result.Deleted;
    } catch (ElasticsearchException | IOException e) {
      if (status(e) == NOT_FOUND) {
        return false;
      }
      throw failure("deleting", kind, id, e);
    }
  }

  @Override
  public boolean delete(String kind, String id, long expectedVersion) {
    try {
      Optional<GetResponse<Map<String, Object>>> current = current(kind, id);
      if (current.isEmpty()) {
        return false;
      }
      if (((Number) current.get().source().get("version")).longValue() != expectedVersion) {
        throw new VersionConflictException(kind, id, expectedVersion);
      }
      return client.delete(r -> r.index(indices.management()).id(docId(kind, id)).ifSeqNo(current.get().seqNo())
          .ifPrimaryTerm(current.get().primaryTerm()).refresh(Refresh.True)).result() == Result.Deleted;
    } catch (ElasticsearchException | IOException e) {
      if (status(e) == CONFLICT) {
        throw new VersionConflictException(kind, id, expectedVersion);
      }
      if (status(e) == NOT_FOUND) {
        return false;
      }
      throw failure("deleting", kind, id, e);
    }
  }

  /**
   * The HTTP status of a refused request: the typed client reports some as {@link
   * ElasticsearchException}, others (a 409 among them) as the low-level client's {@link
   * ResponseException}.
   */
  private static int status(Exception e) {
    if (e instanceof ElasticsearchException es) {
      return es.status();
    }
    return e instanceof ResponseException r ? r.getResponse().getStatusLine().getStatusCode() : -1;
  }

  private static RuntimeException failure(String doing, String kind, String id, Exception e) {
    String message = doing + " " + kind + " '" + id + "' failed";
    return e instanceof IOException io ? new UncheckedIOException(message, io) : new IllegalStateException(message, e);
  }

  private static ManagedDocument document(Map<String, Object> d) {
    return new ManagedDocument((String) d.get("kind"), (String) d.get("id"), ((Number) d.get("version")).longValue(),
        ((Number) d.get("updated")).longValue(), (String) d.get("body"));
  }
}
