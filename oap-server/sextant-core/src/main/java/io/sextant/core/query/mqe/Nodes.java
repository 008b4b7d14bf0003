package io.sextant.core.query.mqe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The AST node types. Package-private: callers only see {@link Expression}. */
final class Nodes {
  private Nodes() {
  }

  /** A number literal such as {@code 100}, {@code 0.5} or {@code 1e3}. */
  record NumberLiteral(double value) implements Expression {
    @Override
    public String toString() {
      return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }
  }

  /** {@code metric} or {@code metric{k='v1,v2', ...}}; labels keep their written order. */
  record MetricRef(String name, Map<String, String> labels) implements Expression {
    MetricRef {
      labels = ordered(labels);
    }

    @Override
    public String toString() {
      return labels.isEmpty() ? name : name + labelsToString(labels);
    }
  }

  /** Unary minus. */
  record Negate(Expression operand) implements Expression {
    @Override
    public String toString() {
      return "(-" + operand + ")";
    }
  }

  record Binary(Operator op, Expression left, Expression right) implements Expression {
    @Override
    public String toString() {
      return "(" + left + " " + op.symbol + " " + right + ")";
    }
  }

  /** avg/count/latest/sum/max/min over each series. */
  record Aggregate(Aggregation function, Expression operand) implements Expression {
    @Override
    public String toString() {
      return function.functionName() + "(" + operand + ")";
    }
  }

  /** One {@code label='a,b', newLabel='x,y'} pair of relabels: value from.get(i) becomes newLabel=to.get(i). */
  record RelabelRule(String label, List<String> from, String newLabel, List<String> to) {
    RelabelRule {
      from = List.copyOf(from);
      to = List.copyOf(to);
    }

    @Override
    public String toString() {
      return label + "='" + String.join(",", from) + "', " + newLabel + "='" + String.join(",", to) + "'";
    }
  }

  /** relabels(expr, rule...); operandText as in {@link AggregateLabels}. */
  record Relabel(Expression operand, List<RelabelRule> rules, String operandText) implements Expression {
    Relabel {
      rules = List.copyOf(rules);
    }

    @Override
    public String toString() {
      return "relabels(" + operand + ", "
          + rules.stream().map(RelabelRule::toString).collect(Collectors.joining(", ")) + ")";
    }
  }

  /** top_n(metric, n, des|asc [, attrN='v' | attrN!='v' ...]); the metric may carry a (rejected) label selector. */
  record TopN(MetricRef metric, int n, boolean ascending, List<AttributeFilter> attributes) implements Expression {
    TopN {
      attributes = List.copyOf(attributes);
    }

    @Override
    public String toString() {
      String attrs = attributes.stream().map(a -> ", " + a).collect(Collectors.joining());
      return "top_n(" + metric + ", " + n + ", " + (ascending ? "asc" : "des") + attrs + ")";
    }
  }

  enum MathFunction { ABS, CEIL, FLOOR, ROUND }

  /** abs/ceil/floor(expr) and round(expr, places); places is 0 for all but round. */
  record Mathematical(MathFunction function, Expression operand, int places) implements Expression {
    @Override
    public String toString() {
      String name = function.name().toLowerCase(Locale.ROOT);
      return name + "(" + operand + (function == MathFunction.ROUND ? ", " + places : "") + ")";
    }
  }

  enum TrendFunction { INCREASE, RATE }

  /** increase/rate(metric, range): the metric only, as in SkyWalking's grammar. */
  record Trend(TrendFunction function, MetricRef metric, int range) implements Expression {
    @Override
    public String toString() {
      return function.name().toLowerCase(Locale.ROOT) + "(" + metric + ", " + range + ")";
    }
  }

  enum LogicalFunction { VIEW_AS_SEQ, IS_PRESENT }

  /** view_as_seq(expr, ...) and is_present(expr, ...). */
  record Logical(LogicalFunction function, List<Expression> operands) implements Expression {
    Logical {
      operands = List.copyOf(operands);
    }

    @Override
    public String toString() {
      return function.name().toLowerCase(Locale.ROOT) + "("
          + operands.stream().map(Object::toString).collect(Collectors.joining(", ")) + ")";
    }
  }

  /**
   * aggregate_labels(expr, sum|avg|max|min[(label, ...)]); no labels folds all series into one. {@code operandText}
   * is the operand as SkyWalking quotes it in errors (its tokens without blanks).
   */
  record AggregateLabels(Aggregation function, List<String> labels, Expression operand, String operandText)
      implements Expression {
    AggregateLabels {
      labels = List.copyOf(labels);
    }

    @Override
    public String toString() {
      String by = labels.isEmpty() ? "" : "(" + String.join(", ", labels) + ")";
      return "aggregate_labels(" + operand + ", " + function.functionName() + by + ")";
    }
  }

  /**
   * sort_values(expr [, limit], asc|des [, aggregation]); limit null keeps all values. With an aggregation
   * (10.3) the series are sorted by their aggregated value; without, each series' values are sorted (10.1).
   */
  record SortValues(Expression operand, Integer limit, boolean ascending, Aggregation bySeries)
      implements Expression {
    @Override
    public String toString() {
      return "sort_values(" + operand + (limit == null ? "" : ", " + limit) + ", " + (ascending ? "asc" : "des")
          + (bySeries == null ? "" : ", " + bySeries.functionName()) + ")";
    }
  }

  /** top_n_of(top_n(...), ..., n, asc|des): the rankings merged, the best {@code n} kept (10.2). */
  record TopNOf(List<TopN> rankings, int n, boolean ascending) implements Expression {
    TopNOf {
      rankings = List.copyOf(rankings);
    }

    @Override
    public String toString() {
      return "top_n_of(" + rankings.stream().map(Object::toString).collect(Collectors.joining(", ")) + ", " + n
          + ", " + (ascending ? "asc" : "des") + ")";
    }
  }

  enum BaselineType { VALUE, UPPER, LOWER }

  /** baseline(metric, value|upper|lower) (10.2). */
  record Baseline(MetricRef metric, BaselineType type) implements Expression {
    @Override
    public String toString() {
      return "baseline(" + metric + ", " + type.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }
  }

  /** sort_label_values(expr, asc|des, label, ...). */
  record SortLabelValues(Expression operand, boolean ascending, List<String> labels) implements Expression {
    SortLabelValues {
      labels = List.copyOf(labels);
    }

    @Override
    public String toString() {
      return "sort_label_values(" + operand + ", " + (ascending ? "asc" : "des") + ", " + String.join(", ", labels)
          + ")";
    }
  }

  /** Immutable copy that keeps the order the user wrote the labels in. */
  private static Map<String, String> ordered(Map<String, String> map) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }

  private static String labelsToString(Map<String, String> labels) {
    return labels.entrySet().stream()
        .map(e -> e.getKey() + "='" + e.getValue() + "'")
        .collect(Collectors.joining(", ", "{", "}"));
  }
}
