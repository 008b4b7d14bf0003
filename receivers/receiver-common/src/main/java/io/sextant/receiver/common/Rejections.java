package io.sextant.receiver.common;

import io.sextant.api.text.Text;

/**
 * The rejections of one call or stream: each counted in the self-metrics by reason, the first one
 * kept for the answer ("rejected N of M records; first: reason: detail"), so that a client learns
 * why without one status per input. Not thread-safe: a stream's calls are serial.
 */
public final class Rejections {
  private final ReceiverMetrics metrics;
  private long count;
  private String first;

  public Rejections(ReceiverMetrics metrics) {
    this.metrics = metrics;
  }

  public void add(Rejection r) {
    add(r.reason(), r.detail(), 1);
  }

  /** Counts {@code n} inputs as refused for one reason. */
  public void add(String reason, String detail, long n) {
    count += n;
    metrics.rejected(reason, n);
    if (first == null) {
      first = reason + ": " + shortened(detail);
    }
  }

  /** Longest detail repeated in an answer: a megabyte name must not come back as a megabyte error. */
  static final int MAX_DETAIL_CHARS = 256;

  static String shortened(String detail) {
    return Text.shortened(detail, MAX_DETAIL_CHARS);
  }

  public long count() {
    return count;
  }

  /** "reason: detail" of the first rejection; null when there was none. */
  public String first() {
    return first;
  }

  /** "rejected N of M {@code what}; first: reason: detail". */
  public String summary(long of, String what) {
    return "rejected " + count + " of " + of + " " + what + "; first: " + first;
  }
}
