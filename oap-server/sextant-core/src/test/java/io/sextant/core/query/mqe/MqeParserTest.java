package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parser tests: toString() of the AST is fully parenthesised, so it shows precedence and associativity. */
class MqeParserTest {

  private static String parsed(String expression) {
    return Mqe.parse(expression).toString();
  }

  @ParameterizedTest(name = "{0}  =>  {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "1 + 2 * 3                  | (1 + (2 * 3))",
      "(1 + 2) * 3                | ((1 + 2) * 3)",
      "10 - 4 - 3                 | ((10 - 4) - 3)",
      "8 / 4 / 2                  | ((8 / 4) / 2)",
      "7 % 4 * 2                  | ((7 % 4) * 2)",
      "a + 1 > b * 2              | ((a + 1) > (b * 2))",
      "a > 1 == 1                 | ((a > 1) == 1)",
      "a>=1                       | (a >= 1)",
      "a<=1                       | (a <= 1)",
      "a != b                     | (a != b)",
      "-a * 2                     | ((-a) * 2)",
      "2 * -3                     | (2 * (-3))",
      "- - a                      | (-(-a))",
      "+a                         | a",
      "0.5                        | 0.5",
      "1e3                        | 1000",
      "2.5E-1                     | 0.25",
      ".5                         | 0.5",
      "service_cpm                | service_cpm",
      "a > bool 1                 | (a > 1)",
      "a + 1 == BOOL b            | ((a + 1) == b)",
      "`  service_cpm\t/\n 100  ` | (service_cpm / 100)",
  })
  void precedenceAndAssociativity(String expression, String expected) {
    assertThat(parsed(expression)).isEqualTo(expected);
  }

  @Test
  void labelSelectorKeepsRawValuesInWrittenOrder() {
    Expression e = Mqe.parse("service_percentile{ p = '50,75,90' , status=\"true\" }");
    assertThat(e).isInstanceOf(Nodes.MetricRef.class);
    Nodes.MetricRef ref = (Nodes.MetricRef) e;
    assertThat(ref.name()).isEqualTo("service_percentile");
    assertThat(ref.labels()).containsExactly(Map.entry("p", "50,75,90"), Map.entry("status", "true"));
    assertThat(e.toString()).isEqualTo("service_percentile{p='50,75,90', status='true'}");
  }

  @Test
  void emptySelectorIsAllowed() {
    assertThat(((Nodes.MetricRef) Mqe.parse("service_cpm{}")).labels()).isEmpty();
  }

  @Test
  void functions() {
    assertThat(parsed("avg(service_sla/100)")).isEqualTo("avg((service_sla / 100))");
    assertThat(parsed("avg(service_sla)/100")).isEqualTo("(avg(service_sla) / 100)");
    assertThat(parsed("latest( max(a) )")).isEqualTo("latest(max(a))");
    assertThat(parsed("count(a{p='1'})")).isEqualTo("count(a{p='1'})");
    assertThat(parsed("(avg(service_sla) < 9500) * (avg(service_cpm) > 1) == 1"))
        .isEqualTo("(((avg(service_sla) < 9500) * (avg(service_cpm) > 1)) == 1)");
    assertThat(parsed("relabels(service_percentile{p='50,75'},p='50,75',percentile='P50, P75')"))
        .isEqualTo("relabels(service_percentile{p='50,75'}, p='50,75', percentile='P50,P75')");
    assertThat(parsed("top_n(service_sla,10,asc)/100")).isEqualTo("(top_n(service_sla, 10, asc) / 100)");
    assertThat(parsed("top_n( service_cpm , 5 , DES , attr0='MESH', attr1 != \"x\")"))
        .isEqualTo("top_n(service_cpm, 5, des, attr0='MESH', attr1!='x')");
    assertThat(parsed("abs(a) + ceil(b) - floor(c) * round(d / 3, 2)"))
        .isEqualTo("((abs(a) + ceil(b)) - (floor(c) * round((d / 3), 2)))");
    assertThat(parsed("increase(service_cpm, 2) + rate(m{p='1'},5)"))
        .isEqualTo("(increase(service_cpm, 2) + rate(m{p='1'}, 5))");
    assertThat(parsed("view_as_seq(a, b + 1)")).isEqualTo("view_as_seq(a, (b + 1))");
    assertThat(parsed("view_as_seq([a, b])")).isEqualTo("view_as_seq(a, b)");
    assertThat(parsed("is_present(a, avg(b))")).isEqualTo("is_present(a, avg(b))");
    assertThat(parsed("aggregate_labels(m, sum)")).isEqualTo("aggregate_labels(m, sum)");
    assertThat(parsed("aggregate_labels(m / 2, avg(cmd, _))")).isEqualTo("aggregate_labels((m / 2), avg(cmd, _))");
    assertThat(parsed("sort_values(m, 10, des)")).isEqualTo("sort_values(m, 10, des)");
    assertThat(parsed("sort_values(m, ASC)")).isEqualTo("sort_values(m, asc)");
    assertThat(parsed("sort_label_values(m, des, p, q)")).isEqualTo("sort_label_values(m, des, p, q)");
  }

  @Test
  void topNNodeCarriesArguments() {
    Nodes.TopN t = (Nodes.TopN) Mqe.parse("top_n(endpoint_cpm, 3, Asc, attr0='MESH', attr5!='x')");
    assertThat(t.metric().name()).isEqualTo("endpoint_cpm");
    assertThat(t.n()).isEqualTo(3);
    assertThat(t.ascending()).isTrue();
    assertThat(t.attributes()).containsExactly(
        new AttributeFilter("attr0", true, "MESH"), new AttributeFilter("attr5", false, "x"));
  }

  @Test
  void operandTextIsQuotedAsSkyWalkingDoes() {
    Nodes.AggregateLabels a = (Nodes.AggregateLabels) Mqe.parse("aggregate_labels( m{p = \"1\"} + 2 , sum)");
    assertThat(a.operandText()).isEqualTo("m{p=\"1\"}+2");
  }

  /** Errors keep the shape of SkyWalking's ANTLR errors: "line L:C reason". */
  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiterString = "=>", quoteCharacter = '`', value = {
      "avg(service_sla                 => line 1:15 mismatched input '<EOF>' expecting ')'",
      "(1 + 2                          => line 1:6 mismatched input '<EOF>' expecting ')'",
      "(1 + 2))                        => line 1:7 extraneous input ')' expecting <EOF>",
      "service_cpm +                   => line 1:13 mismatched input '<EOF>' expecting a metric, number, function"
          + " or '('",
      "service_cpm service_sla         => line 1:12 extraneous input 'service_sla' expecting <EOF>",
      "a # b                           => line 1:2 token recognition error at: '#'",
      "a & b                           => line 1:2 token recognition error at: '&'",
      "a > 1 | b > 2                   => line 1:6 token recognition error at: '|'",
      "a && b > 1 => line 1:0 Bool Operation: The result of the left expression is not a compare result.",
      "a > 1 || b => line 1:9 Bool Operation: The result of the right expression is not a compare result.",
      "a * * b                         => line 1:4 mismatched input '*' expecting a metric, number, function or '('",
      "a{p='50}                        => line 1:4 token recognition error at: ''50}'",
      "a{p=50}                         => line 1:4 mismatched input '50' expecting a quoted label value",
      "a{p='50'                        => line 1:8 mismatched input '<EOF>' expecting '}'",
      "a{'50'}                         => line 1:2 mismatched input ''50'' expecting a label name",
      "a{p!='50'}                      => line 1:3 mismatched input '!=' expecting '='",
      "a{p=~'5'}                       => line 1:4 token recognition error at: '~'",
      "a{p='1', p='2'}                 => line 1:9 duplicate label 'p'",
      "a = 1                           => line 1:2 extraneous input '=' expecting <EOF>",
      "1e                              => line 1:1 malformed number '1e'",
      "`   `                           => line 1:3 mismatched input '<EOF>' expecting a metric, number, function"
          + " or '('",
      "`a +\n *`                       => line 2:1 mismatched input '*' expecting a metric, number, function or '('",
      "foo(service_cpm)                => line 1:0 unknown function 'foo'",
      "1 + irate(service_cpm)          => line 1:4 unknown function 'irate'",
      "avg()                           => line 1:4 mismatched input ')' expecting a metric, number, function or '('",
      "max(a, b)                       => line 1:5 mismatched input ',' expecting ')'",
      "round(a)                        => line 1:7 mismatched input ')' expecting ','",
      "round(a, 1.5)                   => line 1:9 mismatched input '1.5' expecting INTEGER",
      "increase(a + 1, 2)              => line 1:11 mismatched input '+' expecting ','",
      "rate(avg(a), 2)                 => line 1:5 mismatched input 'avg' expecting a metric name",
      "top_n(service_cpm, 10)          => line 1:21 mismatched input ')' expecting ','",
      "top_n(service_cpm + 1, 10, des) => line 1:18 mismatched input '+' expecting ','",
      "top_n(service_cpm, 2.5, des)    => line 1:19 mismatched input '2.5' expecting INTEGER",
      "top_n(service_cpm, 10, up)      => line 1:23 mismatched input 'up' expecting {'asc', 'des'}",
      "top_n(m, 10, des, attr6='x')    => line 1:18 mismatched input 'attr6' expecting an attribute attr0..attr5",
      "top_n(m, 10, des, attr0>'x')    => line 1:23 mismatched input '>' expecting '=' or '!='",
      "relabels(a, p='1')              => line 1:17 mismatched input ')' expecting ','",
      "relabels(a, p='1', 2)           => line 1:19 mismatched input '2' expecting a label name",
      "aggregate_labels(a, count)      => line 1:20 mismatched input 'count' expecting {'avg', 'sum', 'max', 'min'}",
      "aggregate_labels(a, sum(1))     => line 1:24 mismatched input '1' expecting a label name",
      "sort_values(a, 10)              => line 1:17 mismatched input ')' expecting ','",
      "sort_label_values(a, des)       => line 1:24 mismatched input ')' expecting ','",
      "view_as_seq()                   => line 1:12 mismatched input ')' expecting a metric, number, function or '('",
      "view_as_seq([a, b)              => line 1:17 mismatched input ')' expecting ']'",
  })
  void parseErrorsNamePositionAndReason(String expression, String message) {
    assertThatThrownBy(() -> Mqe.parse(expression.replace("\\n", "\n"))).isInstanceOf(MqeException.class)
        .hasMessage(message);
  }

  @Test
  void nullExpressionIsAnError() {
    assertThatThrownBy(() -> Mqe.parse(null)).isInstanceOf(MqeException.class)
        .hasMessage("line 1:0 mismatched input '<EOF>' expecting a metric, number, function or '('");
  }

  @Test
  void deepNestingIsAnErrorNotAStackOverflow() {
    String deep = "(".repeat(5000) + "1" + ")".repeat(5000);
    assertThatThrownBy(() -> Mqe.parse(deep)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression nested too deeply");
    String minuses = "-".repeat(5000) + "1";
    assertThatThrownBy(() -> Mqe.parse(minuses)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression nested too deeply");
    String calls = "abs(".repeat(5000) + "1" + ")".repeat(5000);
    assertThatThrownBy(() -> Mqe.parse(calls)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression nested too deeply");
    // Reasonable nesting is fine.
    assertThat(parsed("(".repeat(50) + "1" + ")".repeat(50))).isEqualTo("1");
  }

  @Test
  void aFlatChainIsBoundedByItsMetricsAndOperandsNotOnlyByNesting() {
    String reads = String.join("+", Collections.nCopies(Parser.MAX_METRICS + 1, "service_cpm"));
    assertThatThrownBy(() -> Mqe.parse(reads)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression reads more than 32 metrics");
    String numbers = String.join("+", Collections.nCopies(100_000, "1"));
    assertThatThrownBy(() -> Mqe.parse(numbers)).isInstanceOf(MqeException.class)
        .hasMessageContaining("more than 256 operands");
    // An error naming a huge name is not huge itself.
    assertThatThrownBy(() -> Mqe.parse("x".repeat(1_000_000) + " +")).isInstanceOf(MqeException.class)
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(600));
    // A dashboard's expressions are far inside both.
    Mqe.parse(String.join("+", Collections.nCopies(Parser.MAX_METRICS, "service_cpm")));
    Mqe.parse("avg(service_cpm) + " + String.join("*", Collections.nCopies(200, "2")));
  }
}
