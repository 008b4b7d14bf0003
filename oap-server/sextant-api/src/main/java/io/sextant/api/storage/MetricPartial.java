package io.sextant.api.storage;

import io.sextant.api.time.Step;

/**
 * One collector's partial aggregate of one metric for one entity in one time bucket, as queries
 * read it (collectors write whole {@link PartialRow}s).
 *
 * <p>A writer rewrites the same partial as it accumulates more; a new accumulation of the same
 * bucket (late data, a restart) gets a new {@code sequence} or {@code writerId}, so partials are
 * never read, modified and written back. Queries merge all partials of a bucket. {@code values}
 * and {@code sketch} are the aggregate function's state; storage treats them as opaque.
 */
public record MetricPartial(
    String metric,
    String entityId,
    Step step,
    long bucket,
    String writerId,
    long sequence,
    long[] values,
    byte[] sketch) {
}
