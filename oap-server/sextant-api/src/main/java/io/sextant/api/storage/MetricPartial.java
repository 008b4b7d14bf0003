package io.sextant.api.storage;

import io.sextant.api.time.Step;
import java.util.List;

/**
 * One collector's partial aggregate of one metric for one entity in one time bucket, as queries
 * read it (collectors write whole {@link PartialRow}s).
 *
 * <p>A writer rewrites the same partial as it accumulates more; a new accumulation of the same
 * bucket (late data, a restart) gets a new {@code sequence} or {@code writerId}, so partials are
 * never read, modified and written back. Queries merge all partials of a bucket. {@code values}
 * and {@code sketch} are the aggregate function's state; storage treats them as opaque.
 *
 * <p>{@code closed}: its writer closed the bucket, so this partial never changes again (late data
 * starts a new sequence). A compacted partial (writer {@link #COMPACTED}) is the merge of closed
 * partials of the same metric, entity and bucket, which {@code covers} names by {@link #key()};
 * a reader drops a covered partial wherever it finds one ({@link CoveredPartials}).
 */
public record MetricPartial(
    String metric,
    String entityId,
    Step step,
    long bucket,
    String writerId,
    long sequence,
    long[] values,
    byte[] sketch,
    boolean closed,
    List<String> covers) {
  /** The writer id of compacted partials: no collector's writer id has parentheses. */
  public static final String COMPACTED = "(compacted)";

  public MetricPartial(String metric, String entityId, Step step, long bucket, String writerId, long sequence,
      long[] values, byte[] sketch) {
    this(metric, entityId, step, bucket, writerId, sequence, values, sketch, false, List.of());
  }

  /** Names this partial among the partials of its metric, entity and bucket. */
  public String key() {
    return key(writerId, sequence);
  }

  public static String key(String writerId, long sequence) {
    return writerId + '|' + sequence;
  }
}
