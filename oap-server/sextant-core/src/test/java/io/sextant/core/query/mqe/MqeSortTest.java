package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** sort_values and sort_label_values: the result keeps its input's type; empty values are dropped by sort_values. */
class MqeSortTest extends MqeTestSupport {
  @Test
  void sortValuesOrdersEachSeriesAndDropsEmptyValues() {
    source.metric("m", 3.0, null, 1.0);
    assertThat(eval("sort_values(m, des)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(),
        List.of(point("202611221030", 3.0), point("202611221032", 1.0)))));
    assertThat(eval("sort_values(m, asc)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(),
        List.of(point("202611221032", 1.0), point("202611221030", 3.0)))));
  }

  @Test
  void sortValuesLimit() {
    assertThat(eval("sort_values(service_percentile{p='75'}, 2, des)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        new MqeSeries(p("75"), List.of(point("202611221032", 220.0), point("202611221031", 210.0)))));
    assertThat(eval("sort_values(service_percentile{p='75'}, 9, asc)").results().get(0).values()).hasSize(3);
    assertThat(eval("sort_values(service_cpm, 0, asc)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(), List.of())));
  }

  @Test
  void sortValuesOfASortedList() {
    source.ranking("service_sla", new RankedValue("a", 1), new RankedValue("b", 3), new RankedValue("c", 2));
    assertThat(eval("sort_values(top_n(service_sla, 3, des), 2, asc)")).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(point("a", 1.0), point("c", 2.0)))));
  }

  @Test
  void sortLabelValuesByOneLabel() {
    assertThat(eval("sort_label_values(service_percentile, des, p)").results()).extracting(MqeSeries::labels)
        .containsExactly(p("90"), p("75"), p("50"));
    assertThat(eval("sort_label_values(other_percentile, asc, p)").results()).extracting(MqeSeries::labels)
        .containsExactly(p("50"), p("90"), p("99"));
    // Values and type come along with their series.
    assertThat(eval("sort_label_values(avg(other_percentile), asc, p)")).isEqualTo(ok(ResultType.SINGLE_VALUE,
        single(p("50"), 7.0 / 3), single(p("90"), 5.0 / 3), single(p("99"), 9.0)));
  }

  @Test
  void sortLabelValuesByTwoLabelsAsInTheSkyWalkingDocs() {
    source.series("metric", labels("label1", "a", "label2", "2a"), 1.0)
        .series("metric", labels("label1", "b", "label2", "2a"), 2.0)
        .series("metric", labels("label1", "a", "label2", "2c"), 3.0)
        .series("metric", labels("label1", "b", "label2", "2c"), 4.0);
    assertThat(eval("sort_label_values(metric, des, label1, label2)").results()).extracting(MqeSeries::labels)
        .containsExactly(labels("label1", "b", "label2", "2c"), labels("label1", "b", "label2", "2a"),
            labels("label1", "a", "label2", "2c"), labels("label1", "a", "label2", "2a"));
    assertThat(eval("sort_label_values(metric, asc, label2, label1)").results()).extracting(MqeSeries::labels)
        .containsExactly(labels("label1", "a", "label2", "2a"), labels("label1", "b", "label2", "2a"),
            labels("label1", "a", "label2", "2c"), labels("label1", "b", "label2", "2c"));
  }

  @Test
  void sortLabelValuesUsesStringOrderAndEmptyForAMissingLabel() {
    source.series("codes", labels("code", "10"), 1.0)
        .series("codes", labels("code", "9"), 2.0)
        .series("codes", labels("other", "x"), 3.0);
    assertThat(eval("sort_label_values(codes, asc, code)").results()).extracting(MqeSeries::labels)
        .containsExactly(labels("other", "x"), labels("code", "10"), labels("code", "9"));
    // An unknown label sorts nothing: every series compares equal, the order is kept.
    assertThat(eval("sort_label_values(codes, des, nope)").results()).extracting(MqeSeries::labels)
        .containsExactly(labels("code", "10"), labels("code", "9"), labels("other", "x"));
  }
}
