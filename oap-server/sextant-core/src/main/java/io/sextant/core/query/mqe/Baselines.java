package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * MQE's {@code baseline(metric, value|upper|lower)}. SkyWalking asks an external prediction service;
 * Sextant predicts from its own history: a point's baseline is taken from the same hour of day on
 * each of the previous {@value #DAYS} days (the same day of week's day values for a DAY step): its
 * mean ({@code value}) and the mean plus or minus {@value #SIGMAS} standard deviations ({@code upper},
 * {@code lower}, the lower never below 0). Minutes share their hour's prediction, as SkyWalking's
 * hourly predictions do. Fewer than {@value #MIN_SAMPLES} days with data give no prediction (null).
 */
final class Baselines {
  static final int DAYS = 7;
  static final double SIGMAS = 3;
  static final int MIN_SAMPLES = 2;

  private Baselines() {}

  /** {@code kind}: the metric's, as the evaluator checked it (an unknown metric never gets here). */
  static Evaluator.Value predict(Nodes.Baseline b, MetricKind kind, SeriesSource source, MqeEntity entity,
      List<Long> window, Step step, LongFunction<String> pointId) {
    String metric = b.metric().name();
    if (kind == MetricKind.SAMPLED_RECORD) {
      throw new MqeException("Metric: [" + metric + "] is a record; baseline needs a metric of values.");
    }
    Step history = step == Step.DAY ? Step.DAY : Step.HOUR;
    long day = history == Step.DAY ? 1 : 24;
    List<MqeSeries> out = new ArrayList<>();
    if (window.isEmpty()) {
      return new Evaluator.Value(ResultType.TIME_SERIES_VALUES, out, kind == MetricKind.LABELED);
    }
    long first = TimeBuckets.plus(own(window.get(0), step), history, -DAYS * day);
    long last = TimeBuckets.plus(own(window.get(window.size() - 1), step), history, -day);
    List<Long> past = TimeBuckets.range(first, last, history, Integer.MAX_VALUE);
    Map<Long, Integer> index = new HashMap<>();
    for (int i = 0; i < past.size(); i++) {
      index.put(past.get(i), i);
    }
    for (Series s : source.read(metric, b.metric().labels(), entity, past, history)) {
      List<MqeValue> points = new ArrayList<>(window.size());
      for (long bucket : window) {
        double[] samples = new double[DAYS];
        int n = 0;
        long own = own(bucket, step);
        for (int k = 1; k <= DAYS; k++) {
          Integer i = index.get(TimeBuckets.plus(own, history, -k * day));
          Double v = i == null || s.values() == null || i >= s.values().length ? null : s.values()[i];
          if (v != null) {
            samples[n++] = v;
          }
        }
        points.add(new MqeValue(pointId.apply(bucket), n < MIN_SAMPLES ? null : statistic(b.type(), samples, n)));
      }
      out.add(new MqeSeries(Evaluator.sortedLabels(s), points));
    }
    return new Evaluator.Value(ResultType.TIME_SERIES_VALUES, out, kind == MetricKind.LABELED);
  }

  /** The history bucket (hour, or day for a DAY step) that holds a window bucket. */
  private static long own(long bucket, Step step) {
    return step == Step.MINUTE ? bucket / 100 : bucket;
  }

  private static double statistic(Nodes.BaselineType type, double[] samples, int n) {
    double mean = 0;
    for (int i = 0; i < n; i++) {
      mean += samples[i];
    }
    mean /= n;
    double variance = 0;
    for (int i = 0; i < n; i++) {
      variance += (samples[i] - mean) * (samples[i] - mean);
    }
    double sigma = Math.sqrt(variance / n);
    return switch (type) {
      case VALUE -> mean;
      case UPPER -> mean + SIGMAS * sigma;
      case LOWER -> Math.max(0, mean - SIGMAS * sigma);
    };
  }
}
