package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** abs, ceil, floor and round: applied to every non-empty value, the result keeps its input's type, ids and labels. */
class MqeMathematicalTest extends MqeTestSupport {
  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', value = {
      "abs(0 - 2.5) | 2.5", "abs(3) | 3", "ceil(2.1) | 3", "ceil(0 - 2.9) | -2", "floor(2.9) | 2",
      "floor(0 - 2.1) | -3", "round(2.345, 2) | 2.35", "round(2.5, 0) | 3", "round(0 - 2.5, 0) | -3",
      "round(1.005, 2) | 1.01", "round(123.456, 1) | 123.5", "round(7, 3) | 7"})
  void singleValues(String expression, double expected) {
    assertThat(eval(expression)).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), expected)));
  }

  @Test
  void roundingToMorePlacesThanADoubleHasChangesNothing() {
    // Found by MqeEvaluatorProperties: BigDecimal.setScale(999999999) threw ArithmeticException, and
    // smaller scales first built a number of as many digits.
    assertThat(eval("(-round(1, 999999999))")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), -1.0)));
    assertThat(eval("round(4.9e-324, 400)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 4.9e-324)));
    assertThat(eval("round(1e308, 2)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1e308)));
  }

  @Test
  void timeSeriesKeepIdsAndEmptyValues() {
    assertThat(eval("abs(service_cpm - 20)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(10.0, null, 10.0)));
    assertThat(eval("round(service_cpm / 7, 2)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.43, null, 4.29)));
    assertThat(eval("ceil(service_cpm / 7)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(2.0, null, 5.0)));
    assertThat(eval("floor(service_cpm / 7)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, null, 4.0)));
  }

  @Test
  void labelledSeriesKeepTheirLabels() {
    assertThat(eval("round(service_percentile{p='50,75'} / 3, 1)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 33.3, 36.7, null), lts(p("75"), 66.7, 70.0, 73.3)));
  }

  @Test
  void sortedListsKeepTheirNames() {
    source.ranking("service_sla", new RankedValue("a", 9049), new RankedValue("b", 10000));
    assertThat(eval("round(top_n(service_sla, 2, asc) / 100, 0)")).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(point("a", 90.0), point("b", 100.0)))));
  }

  @Test
  void emptyValuesStayEmptyAndErrorsPassThrough() {
    assertThat(eval("abs(all_null)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
    assertThat(eval("round(avg(all_null), 2)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
    assertThat(eval("ceil(nope)")).isEqualTo(error("Metric: [nope] does not exist."));
  }
}
