package io.sextant.api.ebpf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Consecutive samples of one schedule uploaded together ({@code uploadTime}), sharing one symbol
 * table: a flame graph's symbols repeat across samples, so each is stored once per batch. {@code
 * targetType} is {@code ON_CPU} or {@code OFF_CPU}.
 */
public record StackBatch(String targetType, List<String> symbols, List<StackSample> samples) {
  public StackBatch {
    symbols = List.copyOf(symbols);
    samples = List.copyOf(samples);
  }

  /** Collects samples of one target type, interning their symbols. */
  public static final class Builder {
    private final String targetType;
    private final Map<String, Integer> index = new HashMap<>();
    private final List<String> symbols = new ArrayList<>();
    private final List<StackSample> samples = new ArrayList<>();

    public Builder(String targetType) {
      this.targetType = targetType;
    }

    public String targetType() {
      return targetType;
    }

    public void add(long count, long durationNanos, List<String> kernel, List<String> user) {
      samples.add(new StackSample(count, durationNanos, ids(kernel), ids(user)));
    }

    public int size() {
      return samples.size();
    }

    public StackBatch build() {
      return new StackBatch(targetType, symbols, samples);
    }

    private int[] ids(List<String> stack) {
      int[] ids = new int[stack.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = index.computeIfAbsent(stack.get(i), s -> {
          symbols.add(s);
          return symbols.size() - 1;
        });
      }
      return ids;
    }
  }
}
