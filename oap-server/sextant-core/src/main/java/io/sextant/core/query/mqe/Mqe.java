package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;

/** Entry point of the MQE (Metrics Query Expression) parser and evaluator. */
public final class Mqe {
  private Mqe() {
  }

  /** The names of the metrics an expression reads, in the order written, each once. */
  public static List<String> metricNames(Expression expression) {
    Set<String> names = new LinkedHashSet<>();
    collectMetrics(expression, names);
    return List.copyOf(names);
  }

  private static void collectMetrics(Expression e, Set<String> names) {
    if (e instanceof Nodes.MetricRef m) {
      names.add(m.name());
    } else if (e instanceof Nodes.TopN t) {
      names.add(t.metric().name());
    } else if (e instanceof Nodes.Trend t) {
      names.add(t.metric().name());
    } else if (e instanceof Nodes.Binary b) {
      collectMetrics(b.left(), names);
      collectMetrics(b.right(), names);
    } else if (e instanceof Nodes.Logical l) {
      l.operands().forEach(o -> collectMetrics(o, names));
    } else {
      Expression operand = operand(e);
      if (operand != null) {
        collectMetrics(operand, names);
      }
    }
  }

  /** The one operand of a unary node; null for a literal. */
  private static Expression operand(Expression e) {
    if (e instanceof Nodes.Negate n) {
      return n.operand();
    } else if (e instanceof Nodes.Aggregate a) {
      return a.operand();
    } else if (e instanceof Nodes.Relabel r) {
      return r.operand();
    } else if (e instanceof Nodes.Mathematical m) {
      return m.operand();
    } else if (e instanceof Nodes.AggregateLabels a) {
      return a.operand();
    } else if (e instanceof Nodes.SortValues s) {
      return s.operand();
    } else if (e instanceof Nodes.SortLabelValues s) {
      return s.operand();
    }
    return null;
  }

  /** Whether the outermost operation is a comparison (answers 1 or 0), as an alarm rule needs. */
  public static boolean comparesAtRoot(Expression expression) {
    return expression instanceof Nodes.Binary b && b.op().isComparison();
  }

  /** Parses once; throws MqeException ("line 1:col reason", as SkyWalking's) on a syntax error. */
  public static Expression parse(String expression) {
    return Parser.parse(expression);
  }

  /**
   * Parses and evaluates; never throws for user errors: returns type UNKNOWN with {@code error} set (parse error,
   * unknown metric, bad function args...), or, where SkyWalking does, the input's type and values with the error.
   */
  public static MqeResult evaluate(String expression, SeriesSource source, MqeEntity entity, List<Long> buckets,
      Step step) {
    return evaluate(expression, source, entity, buckets, step, Long::toString);
  }

  /**
   * As above, with the id each time-series point gets from its bucket: SkyWalking's clients expect
   * the bucket's first instant in epoch milliseconds, which needs the server's time zone.
   */
  public static MqeResult evaluate(String expression, SeriesSource source, MqeEntity entity, List<Long> buckets,
      Step step, LongFunction<String> pointId) {
    Expression parsed;
    try {
      parsed = parse(expression);
    } catch (MqeException e) {
      return MqeResult.error(e.getMessage());
    }
    return evaluate(parsed, source, entity, buckets, step, pointId);
  }

  /** Evaluates an already parsed expression (lets callers cache {@link #parse} results); same error contract. */
  public static MqeResult evaluate(Expression expression, SeriesSource source, MqeEntity entity, List<Long> buckets,
      Step step) {
    return evaluate(expression, source, entity, buckets, step, Long::toString);
  }

  private static MqeResult evaluate(Expression expression, SeriesSource source, MqeEntity entity,
      List<Long> buckets, Step step, LongFunction<String> pointId) {
    try {
      List<Long> bucketList = buckets == null ? List.of() : List.copyOf(buckets);
      return new Evaluator(source, entity, bucketList, step, pointId).eval(expression).toResult();
    } catch (MqeException e) {
      MqeResult partial = e.partial();
      // Some SkyWalking errors keep the input's type and values next to the message.
      return partial == null ? MqeResult.error(e.getMessage())
          : new MqeResult(partial.type(), partial.results(), e.getMessage());
    } catch (RuntimeException e) {
      // A failing source (storage down, bad data) is reported like any other query error instead of
      // breaking the whole GraphQL response.
      return MqeResult.error("failed to evaluate expression: " + e);
    }
  }
}
