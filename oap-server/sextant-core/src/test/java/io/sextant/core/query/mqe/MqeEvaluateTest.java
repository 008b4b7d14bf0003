package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.time.Step;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Metrics, numbers, aggregations, binary and compare operators: SkyWalking 10.1's rules and error texts. */
class MqeEvaluateTest extends MqeTestSupport {
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

  /** max, min and latest pick a point and keep its id (bucket); avg, sum and count have no id. */
  @ParameterizedTest(name = "{0}(x) = {1} at {2}")
  @CsvSource({"avg, 20.0,", "sum, 60.0,", "count, 3.0,", "max, 30.0, 3", "min, 10.0, 1", "latest, 20.0, 4"})
  void aggregationsSkipNulls(String function, double expected, String id) {
    source.metric("x", 10.0, null, 30.0, 20.0, null);
    List<Long> five = List.of(1L, 2L, 3L, 4L, 5L);
    MqeResult result = Mqe.evaluate(function + "(x)", source, SERVICE, five, Step.MINUTE);
    assertThat(result).isEqualTo(ok(ResultType.SINGLE_VALUE,
        new MqeSeries(List.of(), List.of(new MqeValue(id, expected)))));
  }

  @ParameterizedTest(name = "{0}(all_null) = null")
  @CsvSource({"avg", "max", "min", "latest"})
  void aggregationOfAllNullsIsEmpty(String function) {
    assertThat(eval(function + "(all_null)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), null)));
  }

  @Test
  void sumAndCountOfAllNullsAreZeroAsInSkyWalking() {
    assertThat(eval("sum(all_null)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 0.0)));
    assertThat(eval("count(all_null)")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 0.0)));
    assertThat(eval("count(service_percentile)")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(p("50"), 2.0), single(p("75"), 3.0), single(p("90"), 2.0)));
  }

  @Test
  void aggregationsApplyToSortedListsButLatestOnlyToTimeSeries() {
    source.ranking("service_sla", new RankedValue("a", 9000), new RankedValue("b", 10000));
    assertThat(eval("avg(top_n(service_sla, 2, des))"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 9500.0)));
    assertThat(eval("max(top_n(service_sla, 2, des))"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, new MqeSeries(List.of(), List.of(new MqeValue("b", 10000.0)))));
    assertThat(eval("latest(top_n(service_sla, 2, des))"))
        .isEqualTo(error("LATEST can only be used in time series result."));
    assertThat(eval("latest(avg(service_cpm))")).isEqualTo(error("LATEST can only be used in time series result."));
  }

  @Test
  void aggregationKeepsLabelsPerSeries() {
    assertThat(eval("avg(service_percentile)")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(p("50"), 105.0), single(p("75"), 210.0), single(p("90"), 310.0)));
    assertThat(eval("latest(service_percentile{p='50,90'})")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        new MqeSeries(p("50"), List.of(new MqeValue("202611221031", 110.0))),
        new MqeSeries(p("90"), List.of(new MqeValue("202611221032", 320.0)))));
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
    // other_percentile lists p=90 first; the left side's labels are kept, p=75 (no match) gets empty values and the
    // right side's p=99 is ignored.
    assertThat(eval("service_percentile - other_percentile")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("50"), 99.0, 108.0, null), lts(p("75"), null, null, null), lts(p("90"), 297.0, null, 318.0)));
  }

  @Test
  void labelSetsMatchRegardlessOfLabelOrder() {
    KeyValue a = new KeyValue("a", "1");
    KeyValue b = new KeyValue("b", "2");
    FakeSource multi = new FakeSource() {
      @Override
      public MetricKind kind(String metric) {
        return MetricKind.LABELED;
      }

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

  @Test
  void boolModifierIsAcceptedAndChangesNothing() {
    assertThat(eval("service_resp_time > bool 3000")).isEqualTo(eval("service_resp_time > 3000"));
    assertThat(eval("2 >= BOOL 1")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("(1 == bool 2) + 5")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 5.0)));
  }

  @Test
  void comparisonBindsLooserThanArithmetic() {
    // 1 + 2 > 2 * 1 is (1 + 2) > (2 * 1); 10 - 4 - 3 == 3 is ((10 - 4) - 3) == 3
    assertThat(eval("1 + 2 > 2 * 1")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("10 - 4 - 3 == 3")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("(2 > 1) * 7")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 7.0)));
  }

  @Test
  void singleValueWithSortedListKeepsTheListType() {
    source.ranking("service_sla", new RankedValue("a", 9000), new RankedValue("b", 10000));
    assertThat(eval("100 - top_n(service_sla, 2, asc) / 100")).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(new MqeValue("a", 10.0), new MqeValue("b", 0.0)))));
  }

  @Test
  void unlabeledSeriesOfDifferentLengthsAreRefused() {
    FakeSource uneven = new FakeSource().metric("a", 1.0, 2.0);
    FakeSource other = new FakeSource() {
      @Override
      public MetricKind kind(String metric) {
        return MetricKind.REGULAR;
      }

      @Override
      public List<Series> read(String metric, Map<String, String> sel, MqeEntity e, List<Long> bk, Step s) {
        return metric.equals("a") ? uneven.read(metric, sel, e, bk, s)
            : List.of(new Series(List.of(), new Double[] {1.0}));
      }
    };
    // Both come back over the same buckets, so Sextant pads; only an empty side can still fail.
    assertThat(Mqe.evaluate("a + b", other, SERVICE, List.of(1L, 2L), Step.MINUTE))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(),
            List.of(new MqeValue("1", 2.0), new MqeValue("2", null)))));
    FakeSource none = new FakeSource() {
      @Override
      public MetricKind kind(String metric) {
        return MetricKind.REGULAR;
      }

      @Override
      public List<Series> read(String metric, Map<String, String> sel, MqeEntity e, List<Long> bk, Step s) {
        return List.of();
      }
    };
    assertThat(Mqe.evaluate("a + b", none, SERVICE, List.of(1L), Step.MINUTE))
        .isEqualTo(error("Unsupported binary operation: Series No Labeled, left or right result is empty."));
  }

  @Test
  void emptyLabelledResultStillBehavesAsLabelled() {
    source.labelledWithoutData("k8s_status");
    assertThat(eval("k8s_status * 100")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
    assertThat(eval("service_cpm + k8s_status")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
    assertThat(eval("relabels(k8s_status, p='1', q='2')")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
  }

  // ---- results of other functions ----

  @Test
  void topNCannotBeCombinedWithATimeSeries() {
    source.ranking("service_cpm", new RankedValue("a", 1));
    assertThat(eval("top_n(service_cpm, 10, des) + service_cpm")).isEqualTo(
        error("Unsupported binary operation: Unsupported operation."));
    assertThat(eval("service_cpm > top_n(service_cpm, 10, des)")).isEqualTo(
        error("Unsupported compare operation: Unsupported operation."));
    assertThat(eval("top_n(service_cpm, 10, des) * top_n(service_cpm, 10, des)")).isEqualTo(
        error("Unsupported binary operation: Unsupported operation."));
  }

  // ---- errors ----

  @Test
  void unknownMetricIsReportedNotThrown() {
    assertThat(eval("foo_cpm")).isEqualTo(error("Metric: [foo_cpm] does not exist."));
    assertThat(eval("avg(service_cpm) + foo_cpm / 2")).isEqualTo(error("Metric: [foo_cpm] does not exist."));
    assertThat(eval("top_n(foo_cpm, 3, des)")).isEqualTo(error("Metric: [foo_cpm] does not exist."));
  }

  @Test
  void parseErrorsAreReportedNotThrown() {
    assertThat(eval("avg(service_sla")).isEqualTo(error("line 1:15 mismatched input '<EOF>' expecting ')'"));
    assertThat(eval("foo(service_cpm)")).isEqualTo(error("line 1:0 unknown function 'foo'"));
    assertThat(eval("avg(service_cpm, 1)")).isEqualTo(error("line 1:15 mismatched input ',' expecting ')'"));
    assertThat(eval(null)).isEqualTo(error(
        "line 1:0 mismatched input '<EOF>' expecting a metric, number, function or '('"));
  }

  @Test
  void unexpectedSourceFailureIsReportedNotThrown() {
    SeriesSource broken = new FakeSource() {
      @Override
      public MetricKind kind(String metric) {
        return MetricKind.REGULAR;
      }

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
