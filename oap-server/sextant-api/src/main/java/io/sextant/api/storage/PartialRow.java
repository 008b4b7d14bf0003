package io.sextant.api.storage;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * The unit of writing: one collector's partial aggregates of every metric one accumulator keeps
 * (a metric group, e.g. all service metrics of calls) for one entity in one time bucket. A store
 * writes a row as one document, so a flush writes one document per changed accumulator rather
 * than one per metric. Queries read the cells of one metric back as {@link MetricPartial}s.
 *
 * <p>Like a partial, a row is rewritten under the same {@link #id()} as its accumulator grows;
 * a new accumulation of the same bucket gets a new {@code sequence} or {@code writerId}.
 * {@code closed} and {@code covers} are as in {@link MetricPartial}.
 */
public record PartialRow(
    String group,
    String entityId,
    Step step,
    long bucket,
    String writerId,
    long sequence,
    List<Cell> cells,
    boolean closed,
    List<String> covers) {

  /** Collectors compact closed buckets by this slot of the entity, so each takes a share. */
  public static final int SLOTS = 64;

  public PartialRow(String group, String entityId, Step step, long bucket, String writerId, long sequence,
      List<Cell> cells) {
    this(group, entityId, step, bucket, writerId, sequence, cells, false, List.of());
  }

  /** One metric's state in the row; {@code sketch} is null for metrics without a distribution. */
  public record Cell(String metric, long[] values, byte[] sketch) {}

  /** Deterministic id: a retried write replaces rather than duplicates. */
  public String id() {
    return group + '|' + entityId + '|' + step.ordinal() + '|' + bucket + '|' + writerId + '|' + sequence;
  }

  /** The compaction slot of an entity: the same on every collector and in every store. */
  public static int slot(String entityId) {
    return Math.floorMod(entityId.hashCode(), SLOTS);
  }

  /** Approximate heap bytes the row holds, to bound what waits for storage by memory. */
  public long weightBytes() {
    long bytes = 120 + 2L * (group.length() + entityId.length() + writerId.length());
    for (String k : covers) {
      bytes += 48 + 2L * k.length();
    }
    for (Cell c : cells) {
      bytes += 64 + 8L * c.values().length + (c.sketch() == null ? 0 : 16 + c.sketch().length);
    }
    return bytes;
  }

  /** The row as per-metric partials, as queries read them. */
  public List<MetricPartial> partials() {
    List<MetricPartial> out = new ArrayList<>(cells.size());
    for (Cell c : cells) {
      out.add(new MetricPartial(c.metric(), entityId, step, bucket, writerId, sequence, c.values(), c.sketch(),
          closed, covers));
    }
    return out;
  }
}
