package io.sextant.core.query.mqe;

/** How a metric's values are shaped, as SkyWalking's value column data types. */
public enum MetricKind {
  /** One value per bucket (SkyWalking's COMMON_VALUE). */
  REGULAR,
  /** One value per label set per bucket, e.g. percentiles with label p (LABELED_VALUE). */
  LABELED,
  /** Sampled records such as slow statements, read only through top_n (SAMPLED_RECORD). */
  SAMPLED_RECORD
}
