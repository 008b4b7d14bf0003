package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.MetricsStore;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.time.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.elasticsearch.client.ResponseException;

/**
 * Compaction of one bucket on Elasticsearch ({@link MetricsStore#compact}): the bucket's rows of a
 * share of the slots are read; per group and entity, the closed rows no compacted row covers yet
 * (earlier compacted rows included) are merged into a new compacted row whose id names the next
 * generation, created with
 * {@code op_type=create} (a second compactor of the same rows gets a conflict and leaves them);
 * the index is refreshed, so readers see the compacted row before any row it covers is gone; then
 * the covered rows are deleted, also those an earlier compactor covered and did not delete.
 */
final class EsCompaction {
  private final ElasticsearchClient client;
  private final Indices indices;
  private final Function<PartialRow, Bulk.Doc> toDoc;

  EsCompaction(ElasticsearchClient client, Indices indices, Function<PartialRow, Bulk.Doc> toDoc) {
    this.client = client;
    this.indices = indices;
    this.toDoc = toDoc;
  }

  private record Stored(String id, PartialRow row) {}

  /** Entities planned between two writes: bounds what one pass holds and sends at once. */
  private static final int CHUNK = 500;

  MetricsStore.Compaction compact(Step step, long bucket, int share, int shares, MetricsStore.RowMerger merger) {
    List<Query> filters = filters(step, bucket, share, shares);
    if (leftToCompact(step, bucket, filters) == 0) {
      return new MetricsStore.Compaction(0, 0, 0);
    }
    Pass pass = new Pass(step, bucket, merger);
    // Sorted by row id, whose prefix is group|entity: each entity's rows arrive together.
    Search.all(client, indices.metrics(step, bucket, bucket), filters,
        List.of("group", "entity", "writer", "seq", "closed", "covers", "states", "rid"), "rid", pass::add);
    pass.endEntity();
    pass.write();
    return new MetricsStore.Compaction(pass.read, pass.created, pass.deleted);
  }

  /** One compaction of one bucket: plans entity by entity, writes every {@link #CHUNK} entities. */
  private final class Pass {
    private final Step step;
    private final long bucket;
    private final MetricsStore.RowMerger merger;
    private final String index;
    private final List<Stored> entity = new ArrayList<>();
    private final List<PartialRow> made = new ArrayList<>();
    private final Map<String, List<String>> coveredBy = new LinkedHashMap<>();
    private final List<String> toDelete = new ArrayList<>();
    private int planned;
    long read;
    long created;
    long deleted;

    Pass(Step step, long bucket, MetricsStore.RowMerger merger) {
      this.step = step;
      this.bucket = bucket;
      this.merger = merger;
      this.index = indices.metrics(step, bucket);
    }

    void add(Map<String, Object> d) {
      read++;
      PartialRow row = row(step, bucket, d);
      if (!entity.isEmpty() && !(entity.get(0).row().group().equals(row.group())
          && entity.get(0).row().entityId().equals(row.entityId()))) {
        endEntity();
        if (++planned % CHUNK == 0) {
          write();
        }
      }
      entity.add(new Stored((String) d.get("rid"), row));
    }

    /** Plans the compaction of the entity's rows gathered so far. */
    void endEntity() {
      Set<String> covered = new HashSet<>();
      long generation = 0;
      for (Stored s : entity) {
        if (s.row().writerId().equals(MetricPartial.COMPACTED)) {
          covered.addAll(s.row().covers());
          generation = Math.max(generation, s.row().sequence());
        }
      }
      // Closed rows and earlier compacted rows nothing covers yet: merged into one, which covers
      // them and, through them, what they covered (a reader may still find those).
      List<PartialRow> candidates = new ArrayList<>();
      List<String> candidateIds = new ArrayList<>();
      Set<String> keys = new LinkedHashSet<>();
      for (Stored s : entity) {
        PartialRow r = s.row();
        String key = MetricPartial.key(r.writerId(), r.sequence());
        if (covered.contains(key)) {
          toDelete.add(s.id());
        } else if (r.closed()) {
          candidates.add(r);
          candidateIds.add(s.id());
          keys.add(key);
          keys.addAll(r.covers());
        }
      }
      entity.clear();
      List<PartialRow.Cell> cells = candidates.size() < 2 ? null : merger.merge(candidates);
      if (cells == null) {
        return;
      }
      PartialRow first = candidates.get(0);
      PartialRow compacted = new PartialRow(first.group(), first.entityId(), step, bucket, MetricPartial.COMPACTED,
          generation + 1, cells, true, List.copyOf(keys));
      made.add(compacted);
      coveredBy.put(compacted.id(), candidateIds);
    }

    /** Creates the planned rows, makes them searchable, then deletes what they (or earlier ones) cover. */
    void write() {
      if (!made.isEmpty()) {
        List<BulkOperation> ops = new ArrayList<>(made.size());
        Long now = System.currentTimeMillis();
        for (PartialRow r : made) {
          Bulk.Doc d = toDoc.apply(r);
          d.source().put(Bulk.WRITTEN, now);
          ops.add(BulkOperation.of(o -> o.create(c -> c.index(d.index()).id(d.id()).document(d.source()))));
        }
        long before = created;
        for (BulkResponseItem item : bulk(ops).items()) {
          // A conflict: another compactor made this generation from what it saw; its rows are its to delete.
          if (item.error() == null) {
            created++;
            toDelete.addAll(coveredBy.get(item.id()));
          }
        }
        made.clear();
        coveredBy.clear();
        if (created > before) {
          refresh(index);
        }
      }
      if (!toDelete.isEmpty()) {
        List<BulkOperation> ops = new ArrayList<>(toDelete.size());
        for (String id : toDelete) {
          ops.add(BulkOperation.of(o -> o.delete(d -> d.index(index).id(id))));
        }
        for (BulkResponseItem item : bulk(ops).items()) {
          if (item.error() == null && "deleted".equals(item.result())) {
            deleted++;
          }
        }
        toDelete.clear();
      }
    }
  }

  private static List<Query> filters(Step step, long bucket, int share, int shares) {
    List<FieldValue> slots = new ArrayList<>();
    for (int s = share; s < PartialRow.SLOTS; s += shares) {
      slots.add(FieldValue.of(s));
    }
    return List.of(
        Query.of(q -> q.term(t -> t.field("step").value(step.name()))),
        Query.of(q -> q.term(t -> t.field("bucket").value(bucket))),
        Query.of(q -> q.terms(t -> t.field("slot").terms(v -> v.value(slots)))));
  }

  /**
   * Closed rows no compacted row has taken in yet (those left covered included): a minute
   * compacted already costs this count and nothing more.
   */
  private long leftToCompact(Step step, long bucket, List<Query> filters) {
    try {
      return client.count(c -> c.index(indices.metrics(step, bucket, bucket)).ignoreUnavailable(true)
          .allowNoIndices(true).query(q -> q.bool(b -> b.filter(filters)
              .filter(f -> f.term(t -> t.field("closed").value(true)))
              .mustNot(n -> n.term(t -> t.field("writer").value(MetricPartial.COMPACTED)))))).count();
    } catch (ResponseException e) {
      if (e.getResponse().getStatusLine().getStatusCode() == 503) {
        return 0; // an index created a moment ago, no shard started yet: nothing to compact there yet
      }
      throw new UncheckedIOException("cannot count the rows left to compact", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot count the rows left to compact", e);
    }
  }

  private static PartialRow row(Step step, long bucket, Map<String, Object> d) {
    List<PartialRow.Cell> cells = new ArrayList<>();
    ((Map<?, ?>) d.get("states")).forEach((metric, state) ->
        cells.add(EsMetricsStore.cell((String) metric, (Map<?, ?>) state)));
    return new PartialRow((String) d.get("group"), (String) d.get("entity"), step, bucket, (String) d.get("writer"),
        ((Number) d.get("seq")).longValue(), cells, Boolean.TRUE.equals(d.get("closed")), EsMetricsStore.covers(d));
  }

  private BulkResponse bulk(List<BulkOperation> ops) {
    try {
      return client.bulk(b -> b.operations(ops));
    } catch (IOException e) {
      throw new UncheckedIOException("compaction's bulk request failed", e);
    }
  }

  private void refresh(String index) {
    try {
      client.indices().refresh(r -> r.index(index));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot refresh " + index, e);
    }
  }
}
