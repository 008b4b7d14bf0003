package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.time.Step;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What SkyWalking 10.2 to 10.4 added to MQE: bool operators, top_n_of, baseline, owners, sort_values by series. */
class MqeNewerReleasesTest extends MqeTestSupport {
  @Test
  void boolOperatorsCombineComparisonsPointByPoint() {
    // service_resp_time 2500, 3500, null; service_cpm 10, null, 30
    assertThat(eval("service_resp_time > 3000 && service_cpm < 1000")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        ts(0.0, null, null)));
    assertThat(eval("service_resp_time > 3000 || service_sla >= 9500")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        ts(1.0, 1.0, null)));
    assertThat(eval("service_sla > 9000 && service_sla < 9900 || service_sla == 10000"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, 0.0, 1.0)));
    assertThat(eval("avg(service_sla) > 9000 && avg(service_cpm) > 10")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(List.of(), 1.0)));
  }

  @Test
  void boolOperatorsBindLooserThanComparisonsAndTakeParentheses() {
    assertThat(Mqe.parse("a > 1 && b < 2 || c == 3").toString())
        .isEqualTo(Mqe.parse("((a > 1) && (b < 2)) || (c == 3)").toString());
    assertThat(eval("(service_sla > 9000 || service_cpm > 20) && service_cpm > 5"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, null, 1.0)));
  }

  @Test
  void boolOperatorsRefuseWhatIsNotAComparison() {
    assertThat(eval("service_cpm && service_sla > 1").error())
        .contains("Bool Operation: The result of the left expression is not a compare result.");
    assertThat(eval("service_sla > 1 || service_cpm + 1").error())
        .contains("Bool Operation: The result of the right expression is not a compare result.");
  }

  @Test
  void topNOfMergesRankingsAndKeepsTheBest() {
    source.ranking("service_cpm", new RankedValue("a", 5), new RankedValue("b", 50), new RankedValue("c", 7));
    source.ranking("k8s_service_cpm", new RankedValue("x", 20), new RankedValue("y", 1));
    assertThat(eval("top_n_of(top_n(service_cpm, 2, des), top_n(k8s_service_cpm, 2, des), 3, des)"))
        .isEqualTo(ok(ResultType.SORTED_LIST,
            new MqeSeries(List.of(), List.of(point("b", 50.0), point("x", 20.0), point("c", 7.0)))));
    assertThat(eval("top_n_of(top_n(service_cpm, 3, asc, attr0='MESH'), 2, asc)"))
        .isEqualTo(ok(ResultType.SORTED_LIST, new MqeSeries(List.of(), List.of(point("a", 5.0), point("c", 7.0)))));
    assertThat(eval("top_n_of(top_n(service_cpm, 3, des), 0, des)")).isEqualTo(error("TopN value must be > 0."));
    assertThat(eval("top_n_of(service_cpm, 3, des)").error()).contains("expecting 'top_n'");
  }

  @Test
  void ownersOfRankedValuesSurviveArithmetic() {
    MqeOwner shop = new MqeOwner("Service", "c2hvcA==.1", "shop", true, null, null, null, null);
    source.ranking("service_sla", new RankedValue("shop", 9000, shop), new RankedValue("cart", 8000));
    MqeResult r = eval("top_n(service_sla, 2, des, attr0='MESH') / 100");
    assertThat(r.results().get(0).values())
        .containsExactly(new MqeValue("shop", 90.0, null, shop), new MqeValue("cart", 80.0));
  }

  @Test
  void sortValuesWithAnAggregationSortsTheSeriesAsSkyWalking103Does() {
    // other_percentile: p=90 avg 5/3, p=50 avg 7/3, p=99 avg 9
    assertThat(eval("sort_values(other_percentile, 2, des, avg)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("99"), 9.0, 9.0, 9.0), lts(p("50"), 1.0, 2.0, 4.0)));
    assertThat(eval("sort_values(other_percentile, 10, asc, max)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(p("90"), 3.0, 0.0, 2.0), lts(p("50"), 1.0, 2.0, 4.0), lts(p("99"), 9.0, 9.0, 9.0)));
    // Without the aggregation: 10.1's order of each series' values.
    assertThat(eval("sort_values(service_cpm, 2, des)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        new MqeSeries(List.of(), List.of(point("202611221032", 30.0), point("202611221030", 10.0)))));
  }

  @Test
  void baselineIsTheSameHourOfThePreviousWeek() {
    Map<Long, Double> hours = new HashMap<>();
    // The hour 2026-11-22 10:00 on each of the 7 previous days: 10, 20, 10, 20, 10, 20, 10.
    for (int day = 1; day <= 7; day++) {
      hours.put(2026112210L - day * 100L, day % 2 == 1 ? 10.0 : 20.0);
    }
    source.bucketed("service_cpm_history", hours);
    double mean = 100.0 / 7;
    double sigma = Math.sqrt((4 * Math.pow(10 - mean, 2) + 3 * Math.pow(20 - mean, 2)) / 7);
    MqeResult value = eval("baseline(service_cpm_history, value)");
    assertThat(source.lastStep).isEqualTo(Step.HOUR);
    assertThat(value.results().get(0).values()).extracting(MqeValue::id)
        .containsExactly("202611221030", "202611221031", "202611221032");
    assertThat(value.results().get(0).values()).allSatisfy(v -> assertThat(v.value()).isCloseTo(mean, within()));
    assertThat(eval("baseline(service_cpm_history, upper)").results().get(0).values().get(0).value())
        .isCloseTo(mean + 3 * sigma, within());
    assertThat(eval("baseline(service_cpm_history, lower)").results().get(0).values().get(0).value())
        .isCloseTo(0.0, within());
  }

  @Test
  void baselineWithoutEnoughHistoryIsEmptyAndBadTypesAreRefused() {
    source.bucketed("young", Map.of(2026112110L, 5.0));
    assertThat(eval("baseline(young, value)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
    assertThat(eval("baseline(service_cpm, median)").error()).contains("expecting {'value', 'upper', 'lower'}");
    assertThat(eval("baseline(nope, value)")).isEqualTo(error("Metric: [nope] does not exist."));
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
