package io.sextant.core.query.mqe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** avg/sum/max/min/latest over each series. */
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

  record Relabel(Expression operand, List<RelabelRule> rules) implements Expression {
    Relabel {
      rules = List.copyOf(rules);
    }

    @Override
    public String toString() {
      return "relabels(" + operand + ", "
          + rules.stream().map(RelabelRule::toString).collect(Collectors.joining(", ")) + ")";
    }
  }

  record TopN(String metric, int n, boolean ascending, Map<String, String> attributes) implements Expression {
    TopN {
      attributes = ordered(attributes);
    }

    @Override
    public String toString() {
      String attrs = attributes.entrySet().stream()
          .map(e -> ", " + e.getKey() + "='" + e.getValue() + "'")
          .collect(Collectors.joining());
      return "top_n(" + metric + ", " + n + ", " + (ascending ? "asc" : "des") + attrs + ")";
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
