package io.sextant.core.metric;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Counts per histogram bucket (bucket = its lower bound, as SkyWalking's meter histograms name them),
 * kept sorted: the exact, mergeable state of SkyWalking's {@code histogram_percentile}. Not
 * thread-safe: the owner synchronizes.
 *
 * <p>Encoded into the state's sketch bytes with a leading {@code 0x00}, a byte a DDSketch encoding
 * never starts with (its first byte is a flag with a non-zero type or sub-flag), so both stores keep
 * it as they keep sketches.
 */
public final class BucketCounts {
  static final byte MAGIC = 0;
  private long[] bounds = new long[0];
  private long[] counts = new long[0];

  public void add(long bound, long count) {
    int i = Arrays.binarySearch(bounds, bound);
    if (i >= 0) {
      counts[i] += count;
      return;
    }
    int at = -i - 1;
    bounds = insert(bounds, at, bound);
    counts = insert(counts, at, count);
  }

  public void merge(BucketCounts other) {
    for (int i = 0; i < other.bounds.length; i++) {
      add(other.bounds[i], other.counts[i]);
    }
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /**
   * SkyWalking's percentile from buckets: with {@code total} counts, the rank's roof is {@code
   * round(total * rank / 100)} (in float, as SkyWalking computes it) and the value is the first
   * bucket, in ascending order, whose cumulative count reaches it; null when no bucket does.
   */
  public Long percentile(int rank) {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    int roof = Math.round(total * rank * 1.0f / 100);
    long cumulative = 0;
    for (int i = 0; i < bounds.length; i++) {
      cumulative += counts[i];
      if (cumulative >= roof) {
        return bounds[i];
      }
    }
    return null;
  }

  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(1 + 4 + 16 * bounds.length);
    b.put(MAGIC).putInt(bounds.length);
    for (int i = 0; i < bounds.length; i++) {
      b.putLong(bounds[i]).putLong(counts[i]);
    }
    return b.array();
  }

  static boolean isEncoded(byte[] bytes) {
    return bytes.length > 0 && bytes[0] == MAGIC;
  }

  static BucketCounts decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    b.get();
    int n = b.getInt();
    if (n < 0 || n > (bytes.length - 5) / 16) {
      throw new IllegalStateException("corrupt histogram buckets in storage");
    }
    BucketCounts out = new BucketCounts();
    out.bounds = new long[n];
    out.counts = new long[n];
    for (int i = 0; i < n; i++) {
      out.bounds[i] = b.getLong();
      out.counts[i] = b.getLong();
    }
    return out;
  }

  private static long[] insert(long[] a, int at, long v) {
    long[] out = new long[a.length + 1];
    System.arraycopy(a, 0, out, 0, at);
    out[at] = v;
    System.arraycopy(a, at, out, at + 1, a.length - at);
    return out;
  }
}
