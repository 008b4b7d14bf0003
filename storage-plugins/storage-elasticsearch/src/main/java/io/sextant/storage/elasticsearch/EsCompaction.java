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

  MetricsStore.Compaction compact(Step step, long bucket, int share, int shares, MetricsStore.RowMerger merger) {
    List<Query> filters = filters(step, bucket, share, shares);
    if (leftToCompact(step, bucket, filters) == 0) {
      return new MetricsStore.Compaction(0, 0, 0);
    }
    Map<String, List<Stored>> byEntity = new LinkedHashMap<>();
    long read = read(step, bucket, filters, byEntity);
    List<PartialRow> made = new ArrayList<>();
    Map<String, List<String>> coveredBy = new LinkedHashMap<>();
    List<String> toDelete = new ArrayList<>();
    for (List<Stored> rows : byEntity.values()) {
      Set<String> covered = new HashSet<>();
      long generation = 0;
      for (Stored s : rows) {
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
      for (Stored s : rows) {
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
      if (candidates.size() < 2) {
        continue;
      }
      PartialRow first = candidates.get(0);
      List<PartialRow.Cell> cells = merger.merge(candidates);
      if (cells == null) {
        continue;
      }
      PartialRow compacted = new PartialRow(first.group(), first.entityId(), step, bucket, MetricPartial.COMPACTED,
          generation + 1, cells, true, List.copyOf(keys));
      made.add(compacted);
      coveredBy.put(compacted.id(), candidateIds);
    }
    long created = 0;
    String index = indices.metrics(step, bucket);
    if (!made.isEmpty()) {
      List<BulkOperation> ops = new ArrayList<>(made.size());
      Long now = System.currentTimeMillis();
      for (PartialRow r : made) {
        Bulk.Doc d = toDoc.apply(r);
        d.source().put(Bulk.WRITTEN, now);
        ops.add(BulkOperation.of(o -> o.create(c -> c.index(d.index()).id(d.id()).document(d.source()))));
      }
      for (BulkResponseItem item : bulk(ops).items()) {
        // A conflict: another compactor made this generation from what it saw; its rows are its to delete.
        if (item.error() == null) {
          created++;
          toDelete.addAll(coveredBy.get(item.id()));
        }
      }
      if (created > 0) {
        refresh(index);
      }
    }
    long deleted = 0;
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
    }
    return new MetricsStore.Compaction(read, created, deleted);
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
    } catch (IOException e) {
      throw new UncheckedIOException("cannot count the rows left to compact", e);
    }
  }

  /** The bucket's rows of the share's slots, by group and entity; how many were read. */
  private long read(Step step, long bucket, List<Query> filters, Map<String, List<Stored>> byEntity) {
    long[] read = {0};
    Search.all(client, indices.metrics(step, bucket, bucket), filters,
        List.of("group", "entity", "writer", "seq", "closed", "covers", "states", "rid"), "rid", d -> {
          read[0]++;
          PartialRow row = row(step, bucket, d);
          byEntity.computeIfAbsent(row.group() + '|' + row.entityId(), k -> new ArrayList<>())
              .add(new Stored((String) d.get("rid"), row));
        });
    return read[0];
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
