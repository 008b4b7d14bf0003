package io.sextant.api.storage;

import io.sextant.api.time.Step;
import java.util.Collection;
import java.util.List;

/** Partial aggregates, written by collectors and merged by queries. */
public interface MetricsStore {
  /** Upserts rows by {@link PartialRow#id()}. */
  void write(List<PartialRow> rows);

  /**
   * All partials of a metric with buckets in {@code [startBucket, endBucket]}; {@code entityIds}
   * null means every entity. Partials a compacted partial covers are left out
   * ({@link CoveredPartials}).
   */
  List<MetricPartial> read(
      String metric, Collection<String> entityIds, Step step, long startBucket, long endBucket);

  /**
   * Merges the closed partial rows of one bucket into one compacted row per group and entity, for
   * the entities whose {@link PartialRow#slot} is {@code share} modulo {@code shares}, and deletes
   * the rows merged. Any number of collectors may compact the same bucket at once and be killed at
   * any point: a compacted row is created only if its id (a generation per group, entity and
   * bucket) is free, names the rows it covers, and is visible before they are deleted, so every
   * read counts each row once. Rows not closed are left as they are.
   */
  default Compaction compact(Step step, long bucket, int share, int shares, RowMerger merger) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not compact");
  }

  /**
   * Merges the cells of closed rows of one entity and bucket, metric by metric; null when it cannot
   * (a metric it does not know).
   */
  @FunctionalInterface
  interface RowMerger {
    List<PartialRow.Cell> merge(List<PartialRow> rows);
  }

  /** What one compaction did: rows read, compacted rows created, rows deleted. */
  record Compaction(long rowsRead, long rowsCreated, long rowsDeleted) {}
}
