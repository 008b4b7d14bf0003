package io.sextant.core.query.mqe;

import io.sextant.api.time.Step;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing the MQE evaluator (jqwik): expressions built from MQE's own tokens (every function with its
 * argument shape, the metrics of the evaluation tests' {@link FakeSource}, numbers, operators), nested
 * up to 300 deep or strung together at random, that parse are evaluated against that source and give
 * a result or an {@link MqeException} (the user's error), never another exception, a hang or a stack
 * overflow. The evaluator is called directly: {@link Mqe#evaluate} would turn any exception into an
 * error text. A longer run: {@code -Djqwik.tries.default=100000} (docs/reliability.md).
 */
class MqeEvaluatorProperties extends MqeTestSupport {
  private static final Arbitrary<String> METRIC = Arbitraries.of("service_cpm", "service_sla", "service_resp_time",
      "zeros", "all_null", "service_percentile", "service_percentile{p='50,75'}", "other_percentile{p='99'}",
      "requests", "service_percentile{p=''}", "no_such_metric", "sampled_slow_trace_record",
      "top_n_database_statement");
  private static final Arbitrary<String> NUMBER = Arbitraries.of("0", "1", "2", "3", "10", "0.5", "1e308",
      "4.9e-324", "10000", "10001", "99999", "999999999");
  private static final Arbitrary<String> OPERATOR = Arbitraries.of("+", "-", "*", "/", "%", ">", ">= bool", "==",
      "!=", "<", "<=");

  MqeEvaluatorProperties() {
    source.ranking("service_sla", new RankedValue("a", 9000), new RankedValue("b", Double.NaN))
        .bucketed("requests", Map.of(202611221029L, 4.0, 202611221030L, 10.0, 202611221032L, 30.0))
        .kind("sampled_slow_trace_record", MetricKind.SAMPLED_RECORD);
  }

  @Property
  void anExpressionThatParsesGivesAResultOrAnMqeException(@ForAll("expressions") String text) {
    Expression parsed;
    try {
      parsed = Mqe.parse(text);
    } catch (MqeException refused) {
      Statistics.collect("refused by the parser");
      return;
    }
    source.reads.clear();
    try {
      new Evaluator(source, SERVICE, BUCKETS, Step.MINUTE, Long::toString).eval(parsed).toResult();
      Statistics.collect("result");
    } catch (MqeException refused) {
      Statistics.collect("MqeException");
    }
  }

  @Provide
  Arbitrary<String> expressions() {
    Arbitrary<String> tree = expression(4);
    Arbitrary<String> chain = Combinators.combine(tree.list().ofMinSize(2).ofMaxSize(6), OPERATOR.list().ofSize(5))
        .as((operands, ops) -> {
          StringBuilder out = new StringBuilder(operands.get(0));
          for (int i = 1; i < operands.size(); i++) {
            out.append(' ').append(ops.get(i - 1)).append(' ').append(operands.get(i));
          }
          return out.toString();
        });
    Arbitrary<String> token = Arbitraries.oneOf(METRIC, NUMBER, OPERATOR, Arbitraries.of("(", ")", ",", "[", "]",
        "avg(", "round(", "top_n(", "relabels(", "view_as_seq(", "aggregate_labels(", "sort_values(", "asc", "p='50'"));
    Arbitrary<String> soup = token.list().ofMaxSize(30).map(l -> String.join(" ", l));
    Arbitrary<String> deep = Combinators.combine(Arbitraries.of("(", "-", "abs(", "view_as_seq(", "sort_values("),
        Arbitraries.integers().between(1, 300), tree).as((open, k, e) -> open.repeat(k) + e
            + (open.equals("sort_values(") ? ", des)" : open.endsWith("(") ? ")" : "").repeat(k));
    return Arbitraries.oneOf(tree, tree, chain, soup, deep);
  }

  private static Arbitrary<String> expression(int depth) {
    Arbitrary<String> leaf = Arbitraries.oneOf(METRIC, METRIC, NUMBER);
    if (depth == 0) {
      return leaf;
    }
    Arbitrary<String> sub = expression(depth - 1);
    Arbitrary<String> call = Combinators.combine(Arbitraries.of(Template.class), sub, sub, METRIC, NUMBER,
        Arbitraries.of("asc", "des"), Arbitraries.of("p", "q", "p, q", "percentile")).as(Template::fill);
    return Arbitraries.frequencyOf(Tuple.of(3, leaf), Tuple.of(3, call),
        Tuple.of(2, Combinators.combine(sub, OPERATOR, sub).as((l, o, r) -> l + " " + o + " " + r)),
        Tuple.of(1, sub.map(e -> "(" + e + ")")), Tuple.of(1, sub.map(e -> "-" + e)));
  }

  /** A function call with its argument shape: $e, $f operands, $m a metric, $n a number, $o an order, $l labels. */
  private enum Template {
    AVG("avg($e)"), SUM("sum($e)"), COUNT("count($e)"), LATEST("latest($e)"), MAX("max($e)"), MIN("min($e)"),
    ABS("abs($e)"), CEIL("ceil($e)"), FLOOR("floor($e)"), ROUND("round($e, $n)"), INCREASE("increase($m, $n)"),
    RATE("rate($m, $n)"), TOP_N("top_n($m, $n, $o)"), TOP_N_ATTR("top_n($m, $n, $o, attr0='MESH')"),
    VIEW_AS_SEQ("view_as_seq([$e, $f])"), IS_PRESENT("is_present($e, $f)"),
    RELABELS("relabels($e, p='50,75', percentile='P50,P75')"), RELABELS_UNEVEN("relabels($e, p='50', p='x,y')"),
    AGGREGATE_LABELS("aggregate_labels($e, sum)"), AGGREGATE_BY("aggregate_labels($e, max($l))"),
    SORT_VALUES("sort_values($e, $o)"), SORT_VALUES_LIMIT("sort_values($e, $n, $o)"),
    SORT_LABEL_VALUES("sort_label_values($e, $o, $l)");

    private final String shape;

    Template(String shape) {
      this.shape = shape;
    }

    String fill(String e, String f, String m, String n, String o, String l) {
      return shape.replace("$e", e).replace("$f", f).replace("$m", m).replace("$n", n).replace("$o", o)
          .replace("$l", l);
    }
  }
}
