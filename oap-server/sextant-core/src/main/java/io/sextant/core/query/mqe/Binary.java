package io.sextant.core.query.mqe;

import io.sextant.core.query.mqe.Evaluator.Value;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Binary and comparison operators between two results, by SkyWalking 10.1's rules (mqe-rt LROp): a SINGLE_VALUE side
 * acts as a scalar on every value of the other side, which keeps its type; two time series combine index by index,
 * labelled ones by label set (the left side's labels are kept, a left series without a match gets empty values); a
 * sorted or record list combines only with a single value. The error texts are SkyWalking's.
 */
final class Binary {
  private final Operator op;

  private Binary(Operator op) {
    this.op = op;
  }

  static Value apply(Operator op, Value left, Value right) {
    return new Binary(op).combine(left, right);
  }

  private MqeException fail(String reason) {
    return new MqeException("Unsupported " + (op.isComparison() ? "compare" : "binary") + " operation: " + reason);
  }

  private Value combine(Value left, Value right) {
    ResultType lt = left.type();
    ResultType rt = right.type();
    boolean leftSingle = lt == ResultType.SINGLE_VALUE;
    boolean rightSingle = rt == ResultType.SINGLE_VALUE;
    if (leftSingle && rightSingle) {
      if (!left.labeled() && !right.labeled()) {
        Double l = scalar(left, "Single to Single, left");
        return Evaluator.single(op.apply(l, scalar(right, "Single to Single, right")));
      }
      if (left.labeled() && right.labeled()) {
        return singleLabeled(left, right);
      }
      return left.labeled() ? manyToOne(left, right) : oneToMany(left, right);
    }
    if (rightSingle && isMany(lt)) {
      return manyToOne(left, right);
    }
    if (leftSingle && isMany(rt)) {
      return oneToMany(left, right);
    }
    if (lt == ResultType.TIME_SERIES_VALUES && rt == ResultType.TIME_SERIES_VALUES) {
      return series(left, right);
    }
    throw fail("Unsupported operation.");
  }

  private static boolean isMany(ResultType t) {
    return t == ResultType.TIME_SERIES_VALUES || t == ResultType.SORTED_LIST || t == ResultType.RECORD_LIST;
  }

  /** The one value of a single result; SkyWalking refuses a single result with no or several values. */
  private Double scalar(Value single, String what) {
    if (single.series().isEmpty() || single.series().get(0).values().size() != 1) {
      throw fail(what + " result is empty or has more than one value.");
    }
    return single.series().get(0).values().get(0).value();
  }

  /**
   * A single value applied to every value of a time series or list. An unlabeled single value is a scalar (SkyWalking's
   * rule). A labelled one (e.g. avg of a percentile metric) is matched by label set, as SkyWalking's documentation
   * shows (its 10.1 code would apply the first label's value to all); against an unlabeled series it makes one
   * series per label.
   */
  private Value manyToOne(Value many, Value single) {
    if (!single.labeled()) {
      Double s = scalar(single, "Many to One, single");
      return Evaluator.map(many, v -> op.apply(v, s));
    }
    return perLabel(many, single, true);
  }

  private Value oneToMany(Value single, Value many) {
    if (!single.labeled()) {
      Double s = scalar(single, "One to Many, single");
      return Evaluator.map(many, v -> op.apply(s, v));
    }
    return perLabel(many, single, false);
  }

  private Value perLabel(Value many, Value singles, boolean manyOnLeft) {
    List<MqeSeries> out = new ArrayList<>();
    if (many.labeled()) {
      Map<Set<KeyValue>, MqeSeries> byLabels = Evaluator.byLabels(singles.series());
      for (MqeSeries m : many.series()) {
        out.add(withScalar(m, m.labels(), byLabels.get(new HashSet<>(m.labels())), manyOnLeft));
      }
    } else if (!many.series().isEmpty()) {
      for (MqeSeries s : singles.series()) {
        out.add(withScalar(many.series().get(0), s.labels(), s, manyOnLeft));
      }
    }
    return new Value(many.type(), out, true);
  }

  /** Each value of {@code series} with the one value of {@code single}; no single (no match) gives empty values. */
  private MqeSeries withScalar(MqeSeries series, List<KeyValue> labels, MqeSeries single, boolean seriesOnLeft) {
    if (single != null && single.values().size() != 1) {
      throw fail("Many to One, single result is empty or has more than one value.");
    }
    Double s = single == null ? null : single.values().get(0).value();
    List<MqeValue> values = new ArrayList<>();
    for (MqeValue v : series.values()) {
      values.add(v.withValue(seriesOnLeft ? op.apply(v.value(), s) : op.apply(s, v.value())));
    }
    return new MqeSeries(labels, values);
  }

  private Value singleLabeled(Value left, Value right) {
    Map<Set<KeyValue>, MqeSeries> rightByLabels = Evaluator.byLabels(right.series());
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries l : left.series()) {
      if (l.values().size() != 1) {
        throw fail("Single Labeled to Single Labeled, left labeled result is empty or has more than one value.");
      }
      MqeValue lv = l.values().get(0);
      MqeSeries r = rightByLabels.get(new HashSet<>(l.labels()));
      Double value = null;
      if (r != null) {
        if (r.values().size() != 1) {
          throw fail("Single Labeled to Single Labeled, right labeled result has more than one value.");
        }
        value = op.apply(lv.value(), r.values().get(0).value());
      }
      out.add(new MqeSeries(l.labels(), List.of(new MqeValue(lv.id(), value))));
    }
    return new Value(left.type(), out, true);
  }

  private Value series(Value left, Value right) {
    if (!left.labeled() && !right.labeled()) {
      if (left.series().isEmpty() || right.series().isEmpty()) {
        throw fail("Series No Labeled, left or right result is empty.");
      }
      List<MqeSeries> out = new ArrayList<>(left.series());
      out.set(0, pointwise(left.series().get(0), right.series().get(0), true, "Series No Labeled"));
      return new Value(left.type(), out, false);
    }
    if (left.labeled() && !right.labeled()) {
      if (right.series().isEmpty()) {
        throw fail("Series Labeled with No Labeled, no labeled result is empty.");
      }
      List<MqeSeries> out = new ArrayList<>();
      for (MqeSeries l : left.series()) {
        out.add(pointwise(l, right.series().get(0), true, "Series Labeled with No Labeled"));
      }
      return new Value(left.type(), out, true);
    }
    if (!left.labeled()) {
      if (left.series().isEmpty()) {
        throw fail("Series No Labeled with Labeled, no labeled result is empty.");
      }
      List<MqeSeries> out = new ArrayList<>();
      for (MqeSeries r : right.series()) {
        out.add(pointwise(left.series().get(0), r, false, "Series No Labeled with Labeled"));
      }
      return new Value(right.type(), out, true);
    }
    Map<Set<KeyValue>, MqeSeries> rightByLabels = Evaluator.byLabels(right.series());
    List<MqeSeries> out = new ArrayList<>();
    for (MqeSeries l : left.series()) {
      MqeSeries r = rightByLabels.get(new HashSet<>(l.labels()));
      if (r == null) {
        List<MqeValue> empty = l.values().stream().map(v -> new MqeValue(v.id(), null)).toList();
        out.add(new MqeSeries(l.labels(), empty));
      } else {
        out.add(pointwise(l, r, true, "Series Labeled with Labeled"));
      }
    }
    return new Value(left.type(), out, true);
  }

  /** Index by index; labels and ids come from the left series if {@code keepLeft}, else from the right one. */
  private MqeSeries pointwise(MqeSeries left, MqeSeries right, boolean keepLeft, String what) {
    List<MqeValue> l = left.values();
    List<MqeValue> r = right.values();
    if (l.size() != r.size()) {
      throw fail(what + ", left and right series value size not equal.");
    }
    List<MqeValue> out = new ArrayList<>(l.size());
    for (int i = 0; i < l.size(); i++) {
      MqeValue kept = keepLeft ? l.get(i) : r.get(i);
      out.add(kept.withValue(op.apply(l.get(i).value(), r.get(i).value())));
    }
    return new MqeSeries(keepLeft ? left.labels() : right.labels(), out);
  }
}
