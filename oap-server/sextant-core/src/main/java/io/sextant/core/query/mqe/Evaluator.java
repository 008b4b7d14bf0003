package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/**
 * Walks the AST bottom-up with SkyWalking 10.1's evaluation rules (mqe-rt). User errors are thrown as
 * {@link MqeException} and turned into a result with {@code error} set by {@link Mqe#evaluate}.
 */
final class Evaluator {
  /** Bounds the extra buckets increase/rate read before the window. */
  static final int MAX_TREND_RANGE = 10_000;

  /**
   * An intermediate result. {@code labeled} is SkyWalking's "labeled result" flag: set by reading a labelled metric
   * and kept by what follows, so an empty labelled result still pairs and relabels like a labelled one.
   */
  record Value(ResultType type, List<MqeSeries> series, boolean labeled) {
    MqeResult toResult() {
      return MqeResult.of(type, series);
    }

    boolean hasData() {
      return series.stream().flatMap(s -> s.values().stream()).anyMatch(v -> v.value() != null);
    }
  }

  private final SeriesSource source;
  private final MqeEntity entity;
  private final List<Long> buckets;
  private final Step step;
  private final LongFunction<String> pointId;

  Evaluator(SeriesSource source, MqeEntity entity, List<Long> buckets, Step step, LongFunction<String> pointId) {
    this.source = source;
    this.entity = entity;
    this.buckets = buckets;
    this.step = step == null ? Step.MINUTE : step;
    this.pointId = pointId;
  }

  Value eval(Expression expression) {
    if (expression instanceof Nodes.NumberLiteral n) {
      return single(n.value());
    }
    if (expression instanceof Nodes.MetricRef m) {
      return metric(m, buckets);
    }
    if (expression instanceof Nodes.Negate n) {
      return map(eval(n.operand()), v -> -v);
    }
    if (expression instanceof Nodes.Binary b) {
      return Binary.apply(b.op(), eval(b.left()), eval(b.right()));
    }
    if (expression instanceof Nodes.Aggregate a) {
      return aggregate(a.function(), eval(a.operand()));
    }
    if (expression instanceof Nodes.Mathematical m) {
      return mathematical(m, eval(m.operand()));
    }
    if (expression instanceof Nodes.Trend t) {
      return trend(t);
    }
    if (expression instanceof Nodes.TopN t) {
      return topN(t);
    }
    if (expression instanceof Nodes.TopNOf t) {
      return topNOf(t);
    }
    if (expression instanceof Nodes.Baseline b) {
      return Baselines.predict(b, kindOf(b.metric().name()), source, entity, buckets, step, pointId);
    }
    if (expression instanceof Nodes.Relabel r) {
      return relabel(r, eval(r.operand()));
    }
    if (expression instanceof Nodes.AggregateLabels a) {
      return LabelFunctions.aggregate(a, eval(a.operand()));
    }
    if (expression instanceof Nodes.SortValues s) {
      return sortValues(s, eval(s.operand()));
    }
    if (expression instanceof Nodes.SortLabelValues s) {
      return LabelFunctions.sort(s, eval(s.operand()));
    }
    if (expression instanceof Nodes.Logical l) {
      return l.function() == Nodes.LogicalFunction.VIEW_AS_SEQ ? viewAsSeq(l) : isPresent(l);
    }
    throw new IllegalStateException("unhandled node " + expression.getClass());
  }

  static Value single(Double value) {
    return new Value(ResultType.SINGLE_VALUE, List.of(new MqeSeries(List.of(), List.of(new MqeValue(null, value)))),
        false);
  }

  // ---- reading ----

  private MetricKind kindOf(String metric) {
    MetricKind kind = source.kind(metric);
    if (kind == null && SampledRecords.isKnown(metric)) {
      throw new MqeException("Metric: [" + metric + "] is a sampled record (RECORD_LIST) that Sextant does not "
          + "keep, so it cannot answer it.");
    }
    if (kind == null) {
      throw new MqeException("Metric: [" + metric + "] does not exist.");
    }
    return kind;
  }

  private Value metric(Nodes.MetricRef m, List<Long> window) {
    MetricKind kind = kindOf(m.name());
    if (kind == MetricKind.SAMPLED_RECORD) {
      throw new MqeException("Metric: [" + m.name() + "] is topN record, need top_n function for query.");
    }
    boolean labeled = kind == MetricKind.LABELED;
    List<Series> read = source.read(m.name(), m.labels(), entity, window, step);
    List<MqeSeries> out = new ArrayList<>();
    for (Series s : read == null ? List.<Series>of() : read) {
      Double[] values = s.values();
      List<MqeValue> points = new ArrayList<>(window.size());
      for (int i = 0; i < window.size(); i++) {
        // A short (or missing) array just means no data for the remaining buckets.
        Double v = values != null && i < values.length ? values[i] : null;
        points.add(new MqeValue(pointId.apply(window.get(i)), v));
      }
      out.add(new MqeSeries(sortedLabels(s), points));
    }
    return new Value(ResultType.TIME_SERIES_VALUES, out, labeled);
  }

  /** A read series' labels as SkyWalking lists them: sorted by key. */
  static List<KeyValue> sortedLabels(Series s) {
    List<KeyValue> labels = new ArrayList<>(s.labels());
    labels.sort(Comparator.comparing(KeyValue::key));
    return labels;
  }

  private Value topN(Nodes.TopN t) {
    if (t.n() < 1) {
      throw new MqeException("TopN value must be > 0.");
    }
    String metric = t.metric().name();
    MetricKind kind = kindOf(metric);
    if (kind == MetricKind.LABELED) {
      throw new MqeException("Metric: [" + metric + "] is labeled value, does not support top_n query.");
    }
    if (kind == MetricKind.SAMPLED_RECORD) {
      return records(t);
    }
    List<RankedValue> ranked = source.topN(metric, t.n(), t.ascending(), t.attributes(), entity, buckets, step);
    List<MqeValue> values = new ArrayList<>();
    for (RankedValue r : ranked == null ? List.<RankedValue>of() : ranked) {
      values.add(new MqeValue(r.name(), r.value(), null, r.owner()));
    }
    return new Value(ResultType.SORTED_LIST, List.of(new MqeSeries(List.of(), values)), false);
  }

  /** The rankings merged: every non-empty value of every top_n, best {@code n} first; all one type. */
  private Value topNOf(Nodes.TopNOf t) {
    if (t.n() < 1) {
      throw new MqeException("TopN value must be > 0.");
    }
    ResultType type = null;
    List<MqeValue> all = new ArrayList<>();
    for (Nodes.TopN ranking : t.rankings()) {
      Value v = topN(ranking);
      if (type != null && type != v.type()) {
        throw new MqeException("TopN type is not consistent, one is " + type + ", another is " + v.type());
      }
      type = v.type();
      v.series().forEach(s -> s.values().stream().filter(x -> x.value() != null).forEach(all::add));
    }
    Comparator<MqeValue> byValue = Comparator.comparingDouble(MqeValue::value);
    all.sort(t.ascending() ? byValue : byValue.reversed());
    List<MqeValue> best = all.subList(0, Math.min(t.n(), all.size()));
    return new Value(type, List.of(new MqeSeries(List.of(), List.copyOf(best))), false);
  }

  /** top_n over a sampled record: SkyWalking's RECORD_LIST, each value named by the record with its trace id. */
  private Value records(Nodes.TopN t) {
    List<RecordValue> records = source.records(t.metric().name(), t.n(), t.ascending(), entity, buckets, step);
    List<MqeValue> values = new ArrayList<>();
    for (RecordValue r : records == null ? List.<RecordValue>of() : records) {
      values.add(new MqeValue(r.name(), r.value(), r.traceId()));
    }
    return new Value(ResultType.RECORD_LIST, List.of(new MqeSeries(List.of(), values)), false);
  }

  /**
   * increase/rate over {@code range} steps: the metric is read from {@code range} buckets before the window, and each
   * bucket of the window gets value(t) - value(t - range) (per second for rate); empty if either is empty.
   */
  private Value trend(Nodes.Trend t) {
    int range = t.range();
    if (range < 1) {
      throw new MqeException("The trend range must be greater than 0.");
    }
    if (range > MAX_TREND_RANGE) {
      throw new MqeException("The trend range must be at most " + MAX_TREND_RANGE + ".");
    }
    List<Long> window = new ArrayList<>(range + buckets.size());
    if (!buckets.isEmpty()) {
      for (int k = range; k >= 1; k--) {
        window.add(TimeBuckets.plus(buckets.get(0), step, -k));
      }
    }
    window.addAll(buckets);
    Value read = metric(t.metric(), window);
    double perSecond = t.function() == Nodes.TrendFunction.RATE ? range * step.minutes() * 60.0 : 1;
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : read.series()) {
      List<MqeValue> values = s.values();
      List<MqeValue> trend = new ArrayList<>();
      for (int i = range; i < values.size(); i++) {
        Double now = values.get(i).value();
        Double before = values.get(i - range).value();
        Double value = now == null || before == null ? null : (now - before) / perSecond;
        trend.add(new MqeValue(values.get(i).id(), value));
      }
      out.add(new MqeSeries(s.labels(), trend));
    }
    return new Value(read.type(), out, read.labeled());
  }

  // ---- functions ----

  private static Value aggregate(Aggregation function, Value input) {
    if (function == Aggregation.LATEST && input.type() != ResultType.TIME_SERIES_VALUES) {
      throw new MqeException("LATEST can only be used in time series result.");
    }
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.series()) {
      out.add(new MqeSeries(s.labels(), List.of(function.apply(s.values()))));
    }
    return new Value(ResultType.SINGLE_VALUE, out, input.labeled());
  }

  private static Value mathematical(Nodes.Mathematical m, Value input) {
    UnaryOperator<Double> f = switch (m.function()) {
      case ABS -> Math::abs;
      case CEIL -> Math::ceil;
      case FLOOR -> Math::floor;
      case ROUND -> v -> Double.isFinite(v) ? round(v, m.places()) : v;
    };
    return map(input, f);
  }

  /**
   * HALF_UP to {@code places} decimals. A double has a few hundred decimals at most: more places change
   * nothing, and widening to them (up to 999999999) would build a number of a billion digits.
   */
  private static double round(double v, int places) {
    BigDecimal d = BigDecimal.valueOf(v);
    return places >= d.scale() ? d.doubleValue() : d.setScale(places, RoundingMode.HALF_UP).doubleValue();
  }

  /** Renames, in place, label {@code rule.label}=from[i] to {@code rule.newLabel}=to[i]; other labels are kept. */
  private static Value relabel(Nodes.Relabel r, Value input) {
    if (!input.labeled()) {
      throw new MqeException("The result of expression [" + r.operandText() + "] is not a labeled result.",
          input.toResult());
    }
    for (Nodes.RelabelRule rule : r.rules()) {
      if (!rule.from().isEmpty() && !rule.to().isEmpty() && rule.from().size() != rule.to().size()) {
        throw new MqeException("Target label [" + rule.label()
            + "]: the number of relabel values is not equal to the number of replace label.", input.toResult());
      }
    }
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.series()) {
      List<KeyValue> labels = new ArrayList<>(s.labels());
      for (Nodes.RelabelRule rule : r.rules()) {
        for (int i = 0; i < labels.size(); i++) {
          KeyValue kv = labels.get(i);
          int at = kv.key().equals(rule.label()) ? rule.from().indexOf(kv.value()) : -1;
          if (at >= 0 && at < rule.to().size()) {
            labels.set(i, new KeyValue(rule.newLabel(), rule.to().get(at)));
          }
        }
      }
      out.add(new MqeSeries(labels, s.values()));
    }
    return new Value(input.type(), out, true);
  }

  /**
   * Sorts each series' non-empty values (empty ones are dropped), keeping at most {@code limit}; with
   * an aggregation (10.3), sorts the series of a labelled result by their aggregated value instead and
   * keeps the first {@code limit} series, their values as they were.
   */
  private static Value sortValues(Nodes.SortValues s, Value input) {
    if (s.bySeries() != null) {
      return sortSeries(s, input);
    }
    Comparator<MqeValue> byValue = Comparator.comparingDouble(MqeValue::value);
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries series : input.series()) {
      List<MqeValue> values = series.values().stream().filter(v -> v.value() != null)
          .sorted(s.ascending() ? byValue : byValue.reversed())
          .limit(s.limit() == null ? Long.MAX_VALUE : s.limit())
          .toList();
      out.add(new MqeSeries(series.labels(), values));
    }
    return new Value(input.type(), out, input.labeled());
  }

  private static Value sortSeries(Nodes.SortValues s, Value input) {
    if (!input.labeled()) {
      return input;
    }
    // Series without an aggregate (no data) sort last either way, as NaN does in SkyWalking's order.
    Comparator<MqeSeries> byAggregate = Comparator.comparing(
        (MqeSeries series) -> s.bySeries().apply(series.values()).value(),
        Comparator.nullsLast(s.ascending() ? Comparator.<Double>naturalOrder() : Comparator.<Double>reverseOrder()));
    List<MqeSeries> sorted = input.series().stream().sorted(byAggregate).limit(s.limit()).toList();
    return new Value(ResultType.TIME_SERIES_VALUES, sorted, true);
  }

  // ---- logical functions ----

  /** The first operand with a non-empty value; if none has one, the first operand's result (or error). */
  private Value viewAsSeq(Nodes.Logical l) {
    Value first = null;
    MqeException firstError = null;
    for (Expression operand : l.operands()) {
      Value v;
      try {
        v = eval(operand);
      } catch (MqeException e) {
        if (first == null && firstError == null) {
          firstError = e;
        }
        continue;
      }
      if (first == null && firstError == null) {
        first = v;
      }
      if (v.hasData()) {
        return v;
      }
    }
    if (first == null) {
      throw firstError;
    }
    return first;
  }

  /** 1 if any operand has a non-empty value, else 0; an operand that fails (e.g. no such metric) has none. */
  private Value isPresent(Nodes.Logical l) {
    for (Expression operand : l.operands()) {
      try {
        if (eval(operand).hasData()) {
          return single(1.0);
        }
      } catch (MqeException e) {
        // absent
      }
    }
    return single(0.0);
  }

  // ---- helpers ----

  /** Applies f to every non-empty value; f may answer null (no data). */
  static Value map(Value input, UnaryOperator<Double> f) {
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.series()) {
      List<MqeValue> values = new ArrayList<>();
      for (MqeValue v : s.values()) {
        values.add(v.withValue(v.value() == null ? null : f.apply(v.value())));
      }
      out.add(new MqeSeries(s.labels(), values));
    }
    return new Value(input.type(), out, input.labeled());
  }

  /** Series by their label set, ignoring label order. */
  static Map<Set<KeyValue>, MqeSeries> byLabels(List<MqeSeries> series) {
    Map<Set<KeyValue>, MqeSeries> out = new HashMap<>();
    for (MqeSeries s : series) {
      out.put(new HashSet<>(s.labels()), s);
    }
    return out;
  }
}
