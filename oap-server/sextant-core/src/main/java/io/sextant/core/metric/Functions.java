package io.sextant.core.metric;

import io.sextant.api.model.Observation;
import io.sextant.api.time.Step;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The aggregate functions of the metric table, with SkyWalking's value conventions: cpm is calls
 * per minute of the bucket, percent and sla are scaled by 100 (10000 = 100%), apdex by 10000,
 * averages are integer divisions, percentiles come from a sketch.
 */
public final class Functions {
  private Functions() {}

  /** Records per minute. State: a = count. */
  public static AggregateFunction cpm() {
    return new AggregateFunction() {
      @Override
      public void add(MetricState s, Observation r) {
        s.a++;
      }

      @Override
      public void merge(MetricState into, MetricState from) {
        into.a += from.a;
      }

      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.a == 0 ? null : s.a / step.minutes();
      }

      @Override
      public String name() {
        return "cpm";
      }
    };
  }

  /** Integer mean of a field. State: a = sum, b = count. */
  public static AggregateFunction longAvg(ToLongFunction<Observation> field) {
    return new SumAndCount(field, "longAvg") {
      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.b == 0 ? null : s.a / s.b;
      }
    };
  }

  /** Total of a field over the bucket. State: a = sum, b = count (to tell zero from no data). */
  public static AggregateFunction sum(ToLongFunction<Observation> field) {
    return new SumAndCount(field, "sum") {
      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.b == 0 ? null : s.a;
      }
    };
  }

  /** The state shared by sums and means: the field's total and the number of records. */
  /** A percentile function: one value per rank, labelled {@code p} with the ranks. */
  private abstract static class Percentiles implements AggregateFunction {
    private final List<String> labels;
    private final String name;

    Percentiles(List<String> labels, String name) {
      this.labels = labels;
      this.name = name;
    }

    @Override
    public String labelKey() {
      return "p";
    }

    @Override
    public List<String> labelValues() {
      return labels;
    }

    @Override
    public String name() {
      return name;
    }
  }

  private abstract static class SumAndCount implements AggregateFunction {
    private final ToLongFunction<Observation> field;
    private final String name;

    SumAndCount(ToLongFunction<Observation> field, String name) {
      this.field = field;
      this.name = name;
    }

    @Override
    public void add(MetricState s, Observation r) {
      s.a += field.applyAsLong(r);
      s.b++;
    }

    @Override
    public void merge(MetricState into, MetricState from) {
      into.a += from.a;
      into.b += from.b;
    }

    @Override
    public String name() {
      return name;
    }
  }

  /** Share of records matching, 10000 = 100%. State: a = matched, b = total. */
  public static AggregateFunction percent(Predicate<Observation> condition) {
    return new AggregateFunction() {
      @Override
      public void add(MetricState s, Observation r) {
        if (condition.test(r)) {
          s.a++;
        }
        s.b++;
      }

      @Override
      public void merge(MetricState into, MetricState from) {
        into.a += from.a;
        into.b += from.b;
      }

      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.b == 0 ? null : s.a * 10_000 / s.b;
      }

      @Override
      public String name() {
        return "percent";
      }
    };
  }

  /**
   * Apdex with threshold T: satisfied is a success within T, tolerating a success within 4T, the
   * rest (including every failure) frustrated; score = (satisfied + tolerating / 2) / total, scaled
   * by 10000. State: a = satisfied, b = tolerating, c = total.
   */
  public static AggregateFunction apdex(
      ToLongFunction<Observation> latencyMillis, Predicate<Observation> success, long thresholdMillis) {
    return new AggregateFunction() {
      @Override
      public void add(MetricState s, Observation r) {
        if (success.test(r)) {
          long latency = latencyMillis.applyAsLong(r);
          if (latency <= thresholdMillis) {
            s.a++;
          } else if (latency <= 4 * thresholdMillis) {
            s.b++;
          }
        }
        s.c++;
      }

      @Override
      public void merge(MetricState into, MetricState from) {
        into.a += from.a;
        into.b += from.b;
        into.c += from.c;
      }

      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.c == 0 ? null : (s.a * 2 + s.b) * 5_000 / s.c;
      }

      @Override
      public String name() {
        return "apdex";
      }
    };
  }

  /**
   * A function whose values carry a label taken from the data (e.g. the upstream cluster): each
   * label value is its own entity ({@code <entity id>|<label value>}), so the state stays simple;
   * the query side lists the label values it finds.
   */
  public static AggregateFunction labelledBy(String labelKey, AggregateFunction f) {
    return new Wrapped(f) {
      @Override
      public Long value(MetricState s, Step step, int label) {
        return f.value(s, step, 0);
      }

      @Override
      public String labelKey() {
        return labelKey;
      }

      /** Empty: the values come from the data. */
      @Override
      public List<String> labelValues() {
        return List.of();
      }
    };
  }

  /**
   * SkyWalking's {@code filter(...)} before a function: {@code f} sees only the records that pass,
   * so a metric no record passed has no value (as in SkyWalking, where it has no row).
   */
  public static AggregateFunction when(Predicate<Observation> filter, AggregateFunction f) {
    return new Wrapped(f) {
      @Override
      public void add(MetricState s, Observation r) {
        if (filter.test(r)) {
          f.add(s, r);
        }
      }
    };
  }

  /** A function that is another one with a part changed: everything not overridden is {@code f}'s. */
  private abstract static class Wrapped implements AggregateFunction {
    private final AggregateFunction f;

    Wrapped(AggregateFunction f) {
      this.f = f;
    }

    @Override
    public void add(MetricState s, Observation r) {
      f.add(s, r);
    }

    @Override
    public void merge(MetricState into, MetricState from) {
      f.merge(into, from);
    }

    @Override
    public Long value(MetricState s, Step step, int label) {
      return f.value(s, step, label);
    }

    @Override
    public String labelKey() {
      return f.labelKey();
    }

    @Override
    public List<String> labelValues() {
      return f.labelValues();
    }

    @Override
    public String name() {
      return f.name();
    }
  }

  /** Percentiles p50, p75, p90, p95 and p99 of a field, labelled {@code p}. State: sketch. */
  public static AggregateFunction percentile(ToLongFunction<Observation> field) {
    List<String> labels = List.of("50", "75", "90", "95", "99");
    double[] ranks = {0.50, 0.75, 0.90, 0.95, 0.99};
    return new Percentiles(labels, "percentile") {
      @Override
      public void add(MetricState s, Observation r) {
        if (s.sketch == null) {
          s.sketch = Sketches.newSketch();
        }
        s.sketch.accept((double) Math.max(0, field.applyAsLong(r)));
      }

      @Override
      public void merge(MetricState into, MetricState from) {
        if (from.sketch == null) {
          return;
        }
        if (into.sketch == null) {
          into.sketch = Sketches.newSketch();
        }
        into.sketch.mergeWith(from.sketch);
      }

      @Override
      public Long value(MetricState s, Step step, int label) {
        if (s.sketch == null || s.sketch.isEmpty()) {
          return null;
        }
        return Math.round(s.sketch.getValueAtQuantile(ranks[label]));
      }

    };
  }

  /** SkyWalking's {@code SUM_PER_MIN}: the total divided by the bucket's minutes. State: a = sum, b = count. */
  public static AggregateFunction sumPerMin(ToLongFunction<Observation> field) {
    return new SumAndCount(field, "sumPerMin") {
      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.b == 0 ? null : s.a / step.minutes();
      }
    };
  }

  /**
   * SkyWalking's {@code histogram_percentile(ranks)} over bucket counts summed over the bucket of
   * time ({@code downsampling(SUM)}), labelled {@code p} with the ranks. {@code bucket} gives a
   * record's histogram bucket, {@code count} its count. State: bucket counts.
   */
  public static AggregateFunction histogramPercentile(List<Integer> ranks, ToLongFunction<Observation> bucket,
      ToLongFunction<Observation> count) {
    List<String> labels = ranks.stream().map(String::valueOf).toList();
    int[] rankArray = ranks.stream().mapToInt(Integer::intValue).toArray();
    return new Percentiles(labels, "histogramPercentile") {
      @Override
      public void add(MetricState s, Observation r) {
        if (s.buckets == null) {
          s.buckets = new BucketCounts();
        }
        s.buckets.add(bucket.applyAsLong(r), count.applyAsLong(r));
      }

      @Override
      public void merge(MetricState into, MetricState from) {
        if (from.buckets == null) {
          return;
        }
        if (into.buckets == null) {
          into.buckets = new BucketCounts();
        }
        into.buckets.merge(from.buckets);
      }

      @Override
      public Long value(MetricState s, Step step, int label) {
        return s.buckets == null || s.buckets.isEmpty() ? null : s.buckets.percentile(rankArray[label]);
      }

    };
  }
}
