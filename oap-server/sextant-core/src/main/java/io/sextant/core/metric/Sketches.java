package io.sextant.core.metric;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.mapping.IndexMapping;
import com.datadoghq.sketch.ddsketch.mapping.LogarithmicMapping;
import com.datadoghq.sketch.ddsketch.store.CollapsingLowestDenseStore;
import com.datadoghq.sketch.ddsketch.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;

/**
 * Percentile sketches: DDSketch with 1% relative accuracy, so every reported percentile is within
 * 1% of the true value of the same rank, and sketches from any number of collectors merge exactly.
 */
public final class Sketches {
  public static final double RELATIVE_ACCURACY = 0.01;
  /** Bins kept; at 1% accuracy 2048 bins span values from 1 to beyond 10^17. */
  private static final int MAX_BINS = 2048;

  private static final IndexMapping MAPPING = new LogarithmicMapping(RELATIVE_ACCURACY);
  private static final Supplier<Store> STORE = () -> new CollapsingLowestDenseStore(MAX_BINS);

  private Sketches() {}

  public static DDSketch newSketch() {
    return new DDSketch(MAPPING, STORE);
  }

  public static byte[] encode(DDSketch sketch) {
    GrowingByteArrayOutput out = GrowingByteArrayOutput.withDefaultInitialCapacity();
    try {
      sketch.encode(out, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.trimmedCopy();
  }

  /** Decodes a sketch written by {@link #encode}; a corrupt one is reported, not hidden. */
  public static DDSketch decode(byte[] bytes) {
    try {
      return DDSketch.decode(ByteArrayInput.wrap(bytes), STORE, MAPPING);
    } catch (IOException e) {
      throw new IllegalStateException("corrupt percentile sketch in storage", e);
    }
  }
}
