package io.sextant.core.metric;

/**
 * A metric state as it is written: the three counters and the sketch's bytes. Taken under the
 * accumulator's lock, so a flush copies a few hundred bytes per metric instead of whole sketches.
 */
public record EncodedState(long a, long b, long c, byte[] sketch) {

  public static EncodedState of(MetricState s) {
    if (s.buckets != null && !s.buckets.isEmpty()) {
      return new EncodedState(s.a, s.b, s.c, s.buckets.encode());
    }
    boolean hasSketch = s.sketch != null && !s.sketch.isEmpty();
    return new EncodedState(s.a, s.b, s.c, hasSketch ? Sketches.encode(s.sketch) : null);
  }

  /** A state as storage holds it: up to three counters (missing ones zero) and the sketch. */
  public static EncodedState stored(long[] v, byte[] sketch) {
    return new EncodedState(v.length > 0 ? v[0] : 0, v.length > 1 ? v[1] : 0, v.length > 2 ? v[2] : 0, sketch);
  }

  /** True if no record reached this metric (a side filter kept them all out). */
  public boolean isEmpty() {
    return a == 0 && b == 0 && c == 0 && sketch == null;
  }

  public long[] counters() {
    return new long[] {a, b, c};
  }

  public MetricState decode() {
    MetricState s = new MetricState();
    s.a = a;
    s.b = b;
    s.c = c;
    if (sketch != null && BucketCounts.isEncoded(sketch)) {
      s.buckets = BucketCounts.decode(sketch);
    } else {
      s.sketch = sketch == null ? null : Sketches.decode(sketch);
    }
    return s;
  }

  public static EncodedState[] of(MetricState[] states) {
    EncodedState[] out = new EncodedState[states.length];
    for (int i = 0; i < states.length; i++) {
      out[i] = of(states[i]);
    }
    return out;
  }

  public static MetricState[] decode(EncodedState[] states) {
    MetricState[] out = new MetricState[states.length];
    for (int i = 0; i < states.length; i++) {
      out[i] = states[i].decode();
    }
    return out;
  }
}
