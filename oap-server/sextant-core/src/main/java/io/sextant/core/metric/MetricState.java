package io.sextant.core.metric;

import com.datadoghq.sketch.ddsketch.DDSketch;

/**
 * The mergeable state of one metric for one entity and bucket. Every function uses the same three
 * counters and an optional sketch, so states need no class hierarchy and copy cheaply. Not
 * thread-safe: the owner synchronizes.
 */
public final class MetricState {
  public long a;
  public long b;
  public long c;
  public DDSketch sketch;
  /** Histogram bucket counts (SkyWalking's bucket percentiles); null for other functions. */
  public BucketCounts buckets;
}
