package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.time.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MqeEvaluateTest {
  private static final List<Long> BUCKETS = List.of(202611221030L, 202611221031L, 202611221032L);
  private static final MqeEntity SERVICE =
      new MqeEntity("shop", true, null, null, null, null, null, null, null, null);

  private final FakeSource source = new FakeSource()
      .metric("service_cpm", 10.0, null, 30.0)
      .metric("service_sla", 10000.0, 9000.0, 9500.0)
      .metric("service_resp_time", 2500.0, 3500.0, null)
      .metric("zeros", 0.0, 0.0, null)
      .metric("all_null", null, null, null)
      .labelled("service_percentile", "p", "50", 100.0, 110.0, null)
      .labelled("service_percentile", "p", "75", 200.0, 210.0, 220.0)
      .labelled("service_percentile", "p", "90", 300.0, null, 320.0)
      .labelled("other_percentile", "p", "90", 3.0, 0.0, 2.0)
      .labelled("other_percentile", "p", "50", 1.0, 2.0, 4.0)
      .labelled("other_percentile", "p", "99", 9.0, 9.0, 9.0);

  private MqeResult eval(String expression) {
    return Mqe.evaluate(expression, source, SERVICE, BUCKETS, Step.MINUTE);
  }

  /** A series over BUCKETS with the given labels (key, value, key, value...). */
  private static MqeSeries lts(List<KeyValue> labels, Double... values) {
    List<MqeValue> points = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      points.add(new MqeValue(Long.toString(BUCKETS.get(i)), values[i]));
    }
    return new MqeSeries(labels, points);
  }

  private static MqeSeries ts(Double... values) {
    return lts(List.of(), values);
  }

  private static List<KeyValue> p(String value) {
    return List.of(new KeyValue("p", value));
  }

  private static MqeSeries single(List<KeyValue> labels, Double value) {
    return new MqeSeries(labels, List.of(new MqeValue(null, value)));
  }

  private static MqeResult ok(ResultType type, MqeSeries... series) {
    return new MqeResult(type, List.of(series), null);
  }

  private static MqeResult error(String message) {
    return new MqeResult(ResultType.UNKNOWN, List.of(), message);
  }

  // ---- leaves ----

  @Test
  void plainMetricIsATimeSeriesWithBucketIds() {
    assertThat(eval("service_cpm")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(10.0, null, 30.0)));
    assertThat(eval("service_cpm").results().get(0).values().get(0).id()).isEqualTo("202611221030");
    assertThat(source.lastSelector).isEmpty();
    assertThat(source.lastEntity).isEqualTo(SERVICE);
    assertThat(source.lastBuckets).isEqualTo(BUCKETS);
    assertThat(source.lastStep).isEqualTo(Step.MINUTE);
  }

  @Test
  void shortOrMissingValueArraysArePaddedWithNull() {
    source.metric("short", 1.0).metric("none", (Double[]) null);
    assertThat(eval("short")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, null, null)));
    assertThat(eval("none")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
  }

  @Test
  void labelledSelectionPassesSelectorAndKeepsLabels() {
    assertThat(eval("service_percentile{p='50,90'}")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 100.0, 110.0, null), lts(p("90"), 300.0, null, 320.0)));
    assertThat(source.lastSelector).isEqualTo(Map.of("p", "50,90"));

    assertThat(eval("service_percentile{p=\"75\"}"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, lts(p("75"), 200.0, 210.0, 220.0)));
  }

  @Test
  void labelledMetricWithoutSelectorReturnsAllLabelValues() {
    assertThat(eval("service_percentile").results()).extracting(MqeSeries::labels)
        .containsExactly(p("50"), p("75"), p("90"));
  }

  @Test
  void bareNumberIsASingleValue() {
    assertThat(eval("100")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 100.0)));
    assertThat(eval("1e3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1000.0)));
    assertThat(eval("-0.5")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), -0.5)));
  }

  // ---- aggregations ----

  @ParameterizedTest(name = "{0}(x) = {1}")
  @CsvSource({"avg, 20.0", "sum, 60.0", "max, 30.0", "min, 10.0", "latest, 20.0"})
  void aggregationsSkipNulls(String function, double expected) {
    source.metric("x", 10.0, null, 30.0, 20.0, null);
    List<Long> five = List.of(1L, 2L, 3L, 4L, 5L);
    MqeResult result = Mqe.evaluate(function + "(x)", source, SERVICE, five, Step.MINUTE);
    assertThat(result).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), expected)));
  }

  @ParameterizedTest(name = "{0}(all_null) = null")
  @CsvSource({"avg", "sum", "max", "min", "latest"})
  void aggregationOfAllNullsIsNull(String function) {
    assertThat(eval(function + "(all_null)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
  }

  @Test
  void aggregationKeepsLabelsPerSeries() {
    assertThat(eval("avg(service_percentile)")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(p("50"), 105.0), single(p("75"), 210.0), single(p("90"), 310.0)));
    assertThat(eval("latest(service_percentile{p='50,90'})")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(p("50"), 110.0), single(p("90"), 320.0)));
  }

  @Test
  void aggregationOfAnExpressionAndExpressionOfAnAggregation() {
    assertThat(eval("avg(service_sla/100)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 95.0)));
    assertThat(eval("avg(service_sla)/100")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 95.0)));
    assertThat(eval("max(service_cpm) - min(service_cpm)"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 20.0)));
  }

  // ---- arithmetic ----

  @Test
  void singleValueArithmeticAndPrecedence() {
    assertThat(eval("1 + 2 * 3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 7.0)));
    assertThat(eval("(1 + 2) * 3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 9.0)));
    assertThat(eval("10 - 4 - 3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 3.0)));
    assertThat(eval("8 / 4 / 2")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("-2 * -3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 6.0)));
    assertThat(eval("7 % 4")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 3.0)));
  }

  @Test
  void seriesWithScalarAppliesPerValueAndKeepsNulls() {
    assertThat(eval("service_cpm * 2 + 1"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(21.0, null, 61.0)));
    assertThat(eval("service_cpm + 1 * 2"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(12.0, null, 32.0)));
    // Scalar on the left keeps operand order.
    assertThat(eval("100 - service_cpm"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(90.0, null, 70.0)));
    assertThat(eval("-service_cpm")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(-10.0, null, -30.0)));
    assertThat(eval("service_percentile{p='50,75'} / 10")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 10.0, 11.0, null), lts(p("75"), 20.0, 21.0, 22.0)));
  }

  @Test
  void seriesWithAggregatedSingleValueActsAsScalar() {
    // avg(service_cpm) = 20
    assertThat(eval("service_cpm - avg(service_cpm)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(-10.0, null, 10.0)));
  }

  @Test
  void labelledSingleValuesPairWithLabelledSeries() {
    // avg per label: p50 = 105, p75 = 210, p90 = 310
    assertThat(eval("service_percentile - avg(service_percentile)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), -5.0, 5.0, null), lts(p("75"), -10.0, 0.0, 10.0), lts(p("90"), -10.0, null, 10.0)));
    // A lone unlabeled series against labelled single values takes their labels.
    assertThat(eval("service_cpm * max(service_percentile{p='50,75'})")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 1100.0, null, 3300.0), lts(p("75"), 2200.0, null, 6600.0)));
  }

  @Test
  void noSeriesOnOneSideGivesNoSeries() {
    assertThat(eval("service_percentile{p='999'} + 1")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
    assertThat(eval("service_cpm + service_percentile{p='999'}")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
  }

  @Test
  void seriesWithSeriesAppliesPerIndex() {
    assertThat(eval("service_cpm + service_resp_time"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(2510.0, null, null)));
    assertThat(eval("service_sla - service_sla"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(0.0, 0.0, 0.0)));
  }

  @Test
  void labelledSeriesArePairedByLabelsNotPosition() {
    // other_percentile lists p=90 first; unmatched labels (p=75, p=99) are dropped.
    assertThat(eval("service_percentile - other_percentile")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 99.0, 108.0, null), lts(p("90"), 297.0, null, 318.0)));
  }

  @Test
  void labelSetsMatchRegardlessOfLabelOrder() {
    KeyValue a = new KeyValue("a", "1");
    KeyValue b = new KeyValue("b", "2");
    FakeSource multi = new FakeSource() {
      @Override
      public List<Series> read(String metric, Map<String, String> sel, MqeEntity e, List<Long> bk, Step s) {
        return metric.equals("left")
            ? List.of(new Series(List.of(a, b), new Double[] {1.0, 2.0, 3.0}))
            : List.of(new Series(List.of(b, a), new Double[] {10.0, 20.0, 30.0}));
      }
    };
    MqeResult result = Mqe.evaluate("left + right", multi, SERVICE, BUCKETS, Step.MINUTE);
    assertThat(result).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, lts(List.of(a, b), 11.0, 22.0, 33.0)));
  }

  @Test
  void lonelyUnlabeledSeriesIsBroadcast() {
    assertThat(eval("service_percentile{p='50,75'} + service_cpm")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 110.0, null, null), lts(p("75"), 210.0, null, 250.0)));
    assertThat(eval("service_cpm + service_percentile{p='50,75'}")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 110.0, null, null), lts(p("75"), 210.0, null, 250.0)));
  }

  @Test
  void divisionByZeroGivesNullNeverAnError() {
    assertThat(eval("service_cpm / 0")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
    assertThat(eval("service_cpm / zeros")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
    assertThat(eval("1 / 0")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
    assertThat(eval("0 / 0")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
    assertThat(eval("5 % 0")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
    assertThat(eval("zeros / service_cpm")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(0.0, null, null)));
  }

  // ---- comparisons ----

  @Test
  void comparisonGivesOneOrZeroPerValue() {
    assertThat(eval("service_resp_time > 3000"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(0.0, 1.0, null)));
    assertThat(eval("service_resp_time + 1000 >= 3500"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, 1.0, null)));
    assertThat(eval("service_cpm < service_sla"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, null, 1.0)));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
      "2 > 1, 1", "1 > 2, 0", "2 >= 2, 1", "1 >= 2, 0", "1 < 2, 1", "2 < 1, 0", "2 <= 2, 1", "3 <= 2, 0",
      "2 == 2, 1", "2 == 3, 0", "2 != 3, 1", "2 != 2, 0", "1 + 1 == 2, 1", "2 * 3 > 5 + 0, 1"})
  void comparisonOperators(String expression, double expected) {
    assertThat(eval(expression)).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), expected)));
  }

  @Test
  void boosterUiLegendExpression() {
    // avg(service_sla) = 9500 (not < 9500) -> 0
    assertThat(eval("(avg(service_sla) < 9500) * (avg(service_cpm) > 1) == 1"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 0.0)));
    assertThat(eval("(avg(service_sla) < 9600) * (avg(service_cpm) > 1) == 1"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
  }

  // ---- relabels ----

  @Test
  void relabelsRenamesKeyAndValuesInOrder() {
    assertThat(eval("relabels(service_percentile{p='50,75,90'},p='50,75,90',percentile='50,75,90')"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
            lts(List.of(new KeyValue("percentile", "50")), 100.0, 110.0, null),
            lts(List.of(new KeyValue("percentile", "75")), 200.0, 210.0, 220.0),
            lts(List.of(new KeyValue("percentile", "90")), 300.0, null, 320.0)));
  }

  @Test
  void relabelsMapsValuesByPositionAndLeavesOthersAlone() {
    MqeResult r = eval("relabels(service_percentile, p='90,50', percentile='P90,P50')");
    assertThat(r.type()).isEqualTo(ResultType.TIME_SERIES_VALUES);
    assertThat(r.results()).extracting(MqeSeries::labels).containsExactly(
        List.of(new KeyValue("percentile", "P50")),
        p("75"),
        List.of(new KeyValue("percentile", "P90")));
  }

  @Test
  void relabelsKeepsTheResultTypeOfItsInput() {
    assertThat(eval("relabels(avg(service_percentile{p='75'}), p='75', q='x')"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(new KeyValue("q", "x")), 210.0)));
  }

  // ---- top_n ----

  @Test
  void topNWithDivision() {
    source.ranking("service_sla",
        new RankedValue("a", 9000), new RankedValue("b", 10000), new RankedValue("c", 8000));
    MqeResult r = eval("top_n(service_sla,2,asc)/100");
    assertThat(r).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(new MqeValue("c", 80.0), new MqeValue("a", 90.0)))));
    assertThat(source.topNMetric).isEqualTo("service_sla");
    assertThat(source.topNCount).isEqualTo(2);
    assertThat(source.topNAscending).isTrue();
    assertThat(source.topNAttributes).isEmpty();
    assertThat(source.lastEntity).isEqualTo(SERVICE);
    assertThat(source.lastBuckets).isEqualTo(BUCKETS);
  }

  @Test
  void topNDescendingWithAttributes() {
    source.ranking("service_cpm", new RankedValue("a", 1), new RankedValue("b", 3));
    MqeResult r = eval("top_n(service_cpm, 10, DES, attr0='MESH', attr1=\"x\")");
    assertThat(r).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(new MqeValue("b", 3.0), new MqeValue("a", 1.0)))));
    assertThat(source.topNAscending).isFalse();
    assertThat(source.topNAttributes).containsExactly(Map.entry("attr0", "MESH"), Map.entry("attr1", "x"));
  }

  @Test
  void topNCannotBeCombinedWithATimeSeries() {
    source.ranking("service_cpm", new RankedValue("a", 1));
    assertThat(eval("top_n(service_cpm, 10, des) + service_cpm")).isEqualTo(
        error("operator '+' is not supported between SORTED_LIST and TIME_SERIES_VALUES"));
  }

  // ---- errors ----

  @Test
  void unknownMetricIsReportedNotThrown() {
    assertThat(eval("foo_cpm")).isEqualTo(error("unknown metric 'foo_cpm'"));
    assertThat(eval("avg(service_cpm) + foo_cpm / 2")).isEqualTo(error("unknown metric 'foo_cpm'"));
    assertThat(eval("top_n(foo_cpm, 3, des)")).isEqualTo(error("unknown metric 'foo_cpm'"));
  }

  @Test
  void parseErrorsAreReportedNotThrown() {
    assertThat(eval("avg(service_sla")).isEqualTo(
        error("syntax error at position 15: expected ')' but found end of input"));
    assertThat(eval("foo(service_cpm)")).isEqualTo(error("unknown function 'foo' (at position 0)"));
    assertThat(eval("avg(service_cpm, 1)"))
        .isEqualTo(error("function 'avg' takes 1 argument, got 2 (at position 0)"));
    assertThat(eval(null)).isEqualTo(error("syntax error at position 0: empty expression"));
  }

  @Test
  void unexpectedSourceFailureIsReportedNotThrown() {
    SeriesSource broken = new FakeSource() {
      @Override
      public List<Series> read(String metric, Map<String, String> sel, MqeEntity e, List<Long> bk, Step s) {
        throw new IllegalStateException("storage down");
      }
    };
    MqeResult r = Mqe.evaluate("service_cpm", broken, SERVICE, BUCKETS, Step.MINUTE);
    assertThat(r.type()).isEqualTo(ResultType.UNKNOWN);
    assertThat(r.results()).isEmpty();
    assertThat(r.error()).isEqualTo("failed to evaluate expression: java.lang.IllegalStateException: storage down");
  }

  @Test
  void parsedExpressionCanBeEvaluatedRepeatedly() {
    Expression parsed = Mqe.parse("service_cpm * 2");
    MqeResult first = Mqe.evaluate(parsed, source, SERVICE, BUCKETS, Step.MINUTE);
    source.metric("service_cpm", 1.0, 2.0, 3.0);
    MqeResult second = Mqe.evaluate(parsed, source, null, List.of(202611221000L), Step.HOUR);
    assertThat(first).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(20.0, null, 60.0)));
    assertThat(second).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        new MqeSeries(List.of(), List.of(new MqeValue("202611221000", 2.0)))));
    assertThat(source.lastStep).isEqualTo(Step.HOUR);
    assertThat(source.lastEntity).isNull();
  }

  @Test
  void emptyBucketsGiveEmptySeries() {
    assertThat(Mqe.evaluate("service_cpm", source, SERVICE, null, Step.MINUTE))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(), List.of())));
  }
}
