package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    assertThat(parsed("(avg(service_sla) < 9500) * (avg(service_cpm) > 1) == 1"))
        .isEqualTo("(((avg(service_sla) < 9500) * (avg(service_cpm) > 1)) == 1)");
    assertThat(parsed("relabels(service_percentile{p='50,75'},p='50,75',percentile='P50, P75')"))
        .isEqualTo("relabels(service_percentile{p='50,75'}, p='50,75', percentile='P50,P75')");
    assertThat(parsed("top_n(service_sla,10,asc)/100")).isEqualTo("(top_n(service_sla, 10, asc) / 100)");
    assertThat(parsed("top_n( service_cpm , 5 , DES , attr0='MESH', attr1 = \"x\")"))
        .isEqualTo("top_n(service_cpm, 5, des, attr0='MESH', attr1='x')");
  }

  @Test
  void topNNodeCarriesArguments() {
    Nodes.TopN t = (Nodes.TopN) Mqe.parse("top_n(endpoint_cpm, 3, Asc, attr0='MESH')");
    assertThat(t.metric()).isEqualTo("endpoint_cpm");
    assertThat(t.n()).isEqualTo(3);
    assertThat(t.ascending()).isTrue();
    assertThat(t.attributes()).containsExactly(Map.entry("attr0", "MESH"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiterString = "=>", quoteCharacter = '`', value = {
      "avg(service_sla                 => syntax error at position 15: expected ')' but found end of input",
      "(1 + 2                          => syntax error at position 6: expected ')' but found end of input",
      "(1 + 2))                        => syntax error at position 7: unexpected ')'",
      "service_cpm +                   => syntax error at position 13: expected a metric, number, function or '('"
          + " but found end of input",
      "service_cpm service_sla         => syntax error at position 12: unexpected 'service_sla'",
      "a # b                           => syntax error at position 2: unexpected character '#'",
      "a * * b                         => syntax error at position 4: expected a metric, number, function or '('"
          + " but found '*'",
      "a{p='50}                        => syntax error at position 4: unterminated string",
      "a{p=50}                         => syntax error at position 4: expected a quoted label value but found '50'",
      "a{p='50'                        => syntax error at position 8: expected '}' but found end of input",
      "a{'50'}                         => syntax error at position 2: expected a label name but found string '50'",
      "a{p='1', p='2'}                 => syntax error at position 9: duplicate label 'p'",
      "a = 1                           => syntax error at position 2: unexpected '='",
      "1e                              => syntax error at position 1: malformed number '1e'",
      "`   `                           => syntax error at position 0: empty expression",
      "foo(service_cpm)                => unknown function 'foo' (at position 0)",
      "1 + rate(service_cpm, 2)        => unknown function 'rate' (at position 4)",
      "avg()                           => function 'avg' takes 1 argument, got 0 (at position 0)",
      "max(a, b)                       => function 'max' takes 1 argument, got 2 (at position 0)",
      "sum(p='1')                      => function 'sum' expects an expression, not the label argument 'p='1''"
          + " (at position 4)",
      "top_n(service_cpm, 10)          => function 'top_n' takes at least 3 arguments:"
          + " top_n(metric, n, des|asc [, attr='v' ...]), got 2 (at position 0)",
      "top_n(service_cpm + 1, 10, des) => function 'top_n' expects a metric name as its first argument,"
          + " got 'service_cpm + 1' (at position 6)",
      "top_n(service_cpm, 0, des)      => function 'top_n' expects a positive integer as its second argument,"
          + " got '0' (at position 19)",
      "top_n(service_cpm, 2.5, des)    => function 'top_n' expects a positive integer as its second argument,"
          + " got '2.5' (at position 19)",
      "top_n(service_cpm, 10, up)      => function 'top_n' expects order 'des' or 'asc' as its third argument,"
          + " got 'up' (at position 23)",
      "top_n(service_cpm, 10, des, 1)  => function 'top_n' expects a label argument like name='value', got '1'"
          + " (at position 28)",
      "relabels(a, p='1')              => function 'relabels' takes an expression followed by pairs of label"
          + " arguments, e.g. relabels(expr, p='50,75', percentile='P50,P75'), got 2 argument(s) (at position 0)",
      "relabels(a, p='1,2', q='x')     => function 'relabels': label 'p' lists 2 value(s) but 'q' lists 1"
          + " (at position 12)",
      "relabels(a, p='1', 2)           => function 'relabels' expects a label argument like name='value', got '2'"
          + " (at position 19)",
  })
  void parseErrorsNamePositionAndReason(String expression, String message) {
    assertThatThrownBy(() -> Mqe.parse(expression)).isInstanceOf(MqeException.class).hasMessage(message);
  }

  @Test
  void nullExpressionIsAnError() {
    assertThatThrownBy(() -> Mqe.parse(null)).isInstanceOf(MqeException.class)
        .hasMessage("syntax error at position 0: empty expression");
  }

  @Test
  void deepNestingIsAnErrorNotAStackOverflow() {
    String deep = "(".repeat(5000) + "1" + ")".repeat(5000);
    assertThatThrownBy(() -> Mqe.parse(deep)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression nested too deeply");
    String minuses = "-".repeat(5000) + "1";
    assertThatThrownBy(() -> Mqe.parse(minuses)).isInstanceOf(MqeException.class)
        .hasMessageContaining("expression nested too deeply");
    // Reasonable nesting is fine.
    assertThat(parsed("(".repeat(50) + "1" + ")".repeat(50))).isEqualTo("1");
  }
}
