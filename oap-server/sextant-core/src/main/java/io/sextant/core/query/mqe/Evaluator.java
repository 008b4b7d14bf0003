package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Walks the AST bottom-up. Intermediate results are plain {@link MqeResult}s (error always null); user errors are
 * thrown as {@link MqeException} and turned into an UNKNOWN result by {@link Mqe#evaluate}.
 */
final class Evaluator {
  private final SeriesSource source;
  private final MqeEntity entity;
  private final List<Long> buckets;
  private final Step step;

  Evaluator(SeriesSource source, MqeEntity entity, List<Long> buckets, Step step) {
    this.source = source;
    this.entity = entity;
    this.buckets = buckets;
    this.step = step;
  }

  MqeResult eval(Expression expression) {
    if (expression instanceof Nodes.NumberLiteral n) {
      return MqeResult.of(ResultType.SINGLE_VALUE,
          List.of(new MqeSeries(List.of(), List.of(new MqeValue(null, n.value())))));
    }
    if (expression instanceof Nodes.MetricRef m) {
      return metric(m);
    }
    if (expression instanceof Nodes.Negate n) {
      return mapValues(eval(n.operand()), v -> v == null ? null : -v);
    }
    if (expression instanceof Nodes.Binary b) {
      return binary(b.op(), eval(b.left()), eval(b.right()));
    }
    if (expression instanceof Nodes.Aggregate a) {
      return aggregate(a.function(), eval(a.operand()));
    }
    if (expression instanceof Nodes.Relabel r) {
      return relabel(r, eval(r.operand()));
    }
    if (expression instanceof Nodes.TopN t) {
      return topN(t);
    }
    throw new IllegalStateException("unhandled node " + expression.getClass());
  }

  // ---- leaves ----

  private MqeResult metric(Nodes.MetricRef m) {
    List<Series> read = source.read(m.name(), m.labels(), entity, buckets, step);
    List<MqeSeries> out = new ArrayList<>();
    for (Series s : read == null ? List.<Series>of() : read) {
      Double[] values = s.values();
      List<MqeValue> points = new ArrayList<>(buckets.size());
      for (int i = 0; i < buckets.size(); i++) {
        // A short (or missing) array just means no data for the remaining buckets.
        Double v = values != null && i < values.length ? values[i] : null;
        points.add(new MqeValue(Long.toString(buckets.get(i)), v));
      }
      out.add(new MqeSeries(s.labels(), points));
    }
    return MqeResult.of(ResultType.TIME_SERIES_VALUES, out);
  }

  private MqeResult topN(Nodes.TopN t) {
    List<RankedValue> ranked = source.topN(t.metric(), t.n(), t.ascending(), t.attributes(), entity, buckets, step);
    List<MqeValue> values = new ArrayList<>();
    for (RankedValue r : ranked == null ? List.<RankedValue>of() : ranked) {
      values.add(new MqeValue(r.name(), r.value()));
    }
    return MqeResult.of(ResultType.SORTED_LIST, List.of(new MqeSeries(List.of(), values)));
  }

  // ---- functions ----

  private static MqeResult aggregate(Aggregation function, MqeResult input) {
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.results()) {
      out.add(new MqeSeries(s.labels(), List.of(new MqeValue(null, function.apply(s.values())))));
    }
    return MqeResult.of(ResultType.SINGLE_VALUE, out);
  }

  /** Renames, in place, label {@code rule.label}=from[i] to {@code rule.newLabel}=to[i]; other labels are kept. */
  private static MqeResult relabel(Nodes.Relabel r, MqeResult input) {
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.results()) {
      List<KeyValue> labels = new ArrayList<>(s.labels());
      for (Nodes.RelabelRule rule : r.rules()) {
        for (int i = 0; i < labels.size(); i++) {
          KeyValue kv = labels.get(i);
          int at = kv.key().equals(rule.label()) ? rule.from().indexOf(kv.value()) : -1;
          if (at >= 0) {
            labels.set(i, new KeyValue(rule.newLabel(), rule.to().get(at)));
          }
        }
      }
      out.add(new MqeSeries(labels, s.values()));
    }
    return MqeResult.of(input.type(), out);
  }

  // ---- operators ----

  /**
   * SkyWalking's binary rules: a SINGLE_VALUE side acts as a scalar on every value of the other side (which keeps
   * its type and ids); two sides of the same kind (series/series, single/single) combine index by index. Series are
   * paired by label set. Sorted lists combine only with single values.
   */
  private static MqeResult binary(Operator op, MqeResult left, MqeResult right) {
    ResultType lt = left.type();
    ResultType rt = right.type();
    if (lt == ResultType.SINGLE_VALUE && rt != ResultType.SINGLE_VALUE) {
      return MqeResult.of(rt, pair(left.results(), right.results(), false,
          (l, r) -> scalar(r, v -> op.apply(first(l), v))));
    }
    if (rt == ResultType.SINGLE_VALUE && lt != ResultType.SINGLE_VALUE) {
      return MqeResult.of(lt, pair(left.results(), right.results(), true,
          (l, r) -> scalar(l, v -> op.apply(v, first(r)))));
    }
    if (lt == ResultType.SORTED_LIST || rt == ResultType.SORTED_LIST
        || lt == ResultType.RECORD_LIST || rt == ResultType.RECORD_LIST) {
      throw new MqeException("operator '" + op.symbol + "' is not supported between " + lt + " and " + rt);
    }
    return MqeResult.of(lt, pair(left.results(), right.results(), true, (l, r) -> pointwise(op, l, r)));
  }

  private interface Combiner {
    List<MqeValue> combine(MqeSeries left, MqeSeries right);
  }

  /**
   * Pairs series: a lone unlabeled series on one side is broadcast to every series of the other; otherwise series
   * with the same label set (order-insensitive) are paired and unmatched ones dropped. The result carries the labels
   * of the labelled side, or of {@code preferLeft}'s side when both (or neither) are labelled.
   */
  private static List<MqeSeries> pair(List<MqeSeries> left, List<MqeSeries> right, boolean preferLeft,
      Combiner combiner) {
    List<MqeSeries> out = new ArrayList<>();
    if (left.isEmpty() || right.isEmpty()) {
      return out;
    }
    boolean leftLone = left.size() == 1 && left.get(0).labels().isEmpty();
    boolean rightLone = right.size() == 1 && right.get(0).labels().isEmpty();
    if (leftLone && rightLone) {
      MqeSeries l = left.get(0);
      MqeSeries r = right.get(0);
      out.add(new MqeSeries(preferLeft ? l.labels() : r.labels(), combiner.combine(l, r)));
    } else if (rightLone) {
      for (MqeSeries l : left) {
        out.add(new MqeSeries(l.labels(), combiner.combine(l, right.get(0))));
      }
    } else if (leftLone) {
      for (MqeSeries r : right) {
        out.add(new MqeSeries(r.labels(), combiner.combine(left.get(0), r)));
      }
    } else {
      for (MqeSeries l : left) {
        Set<KeyValue> key = new HashSet<>(l.labels());
        for (MqeSeries r : right) {
          if (key.equals(new HashSet<>(r.labels()))) {
            out.add(new MqeSeries(preferLeft ? l.labels() : r.labels(), combiner.combine(l, r)));
            break;
          }
        }
      }
    }
    return out;
  }

  /** Index-by-index; a point missing on either side is null. Ids come from whichever side has the point. */
  private static List<MqeValue> pointwise(Operator op, MqeSeries left, MqeSeries right) {
    List<MqeValue> l = left.values();
    List<MqeValue> r = right.values();
    List<MqeValue> out = new ArrayList<>();
    for (int i = 0; i < Math.max(l.size(), r.size()); i++) {
      MqeValue a = i < l.size() ? l.get(i) : null;
      MqeValue b = i < r.size() ? r.get(i) : null;
      String id = a != null ? a.id() : b.id();
      out.add(new MqeValue(id, op.apply(a == null ? null : a.value(), b == null ? null : b.value())));
    }
    return out;
  }

  private static List<MqeValue> scalar(MqeSeries series, UnaryOperator<Double> f) {
    List<MqeValue> out = new ArrayList<>();
    for (MqeValue v : series.values()) {
      out.add(new MqeValue(v.id(), f.apply(v.value())));
    }
    return out;
  }

  private static Double first(MqeSeries single) {
    return single.values().isEmpty() ? null : single.values().get(0).value();
  }

  private static MqeResult mapValues(MqeResult input, UnaryOperator<Double> f) {
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries s : input.results()) {
      out.add(new MqeSeries(s.labels(), scalar(s, f)));
    }
    return MqeResult.of(input.type(), out);
  }
}
