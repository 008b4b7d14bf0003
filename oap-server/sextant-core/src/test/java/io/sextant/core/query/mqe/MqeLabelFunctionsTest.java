package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** aggregate_labels and relabels: functions over the labels of a labelled result. */
class MqeLabelFunctionsTest extends MqeTestSupport {
  private void commands() {
    source.series("total_commands_rate", labels("cmd", "get", "db", "0"), 1.0, null, 3.0)
        .series("total_commands_rate", labels("cmd", "set", "db", "0"), 10.0, null, null)
        .series("total_commands_rate", labels("cmd", "get", "db", "1"), 100.0, null, 300.0);
  }

  @Test
  void aggregateAllLabelsIntoOneUnlabeledSeries() {
    commands();
    assertThat(eval("aggregate_labels(total_commands_rate, sum)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(111.0, null, 303.0)));
    assertThat(eval("aggregate_labels(total_commands_rate, avg)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(37.0, null, 151.5)));
    assertThat(eval("aggregate_labels(total_commands_rate, max)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(100.0, null, 300.0)));
    assertThat(eval("aggregate_labels(total_commands_rate, min)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(1.0, null, 3.0)));
  }

  @Test
  void aggregateByLabelsKeepsThoseLabelsInFirstSeenOrder() {
    commands();
    // The group's labels come in the order the function names them.
    assertThat(eval("aggregate_labels(total_commands_rate, sum(cmd))")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        lts(labels("cmd", "get"), 101.0, null, 303.0), lts(labels("cmd", "set"), 10.0, null, null)));
    assertThat(eval("aggregate_labels(total_commands_rate, max(db, cmd))")).isEqualTo(ok(
        ResultType.TIME_SERIES_VALUES, lts(labels("db", "0", "cmd", "get"), 1.0, null, 3.0),
        lts(labels("db", "0", "cmd", "set"), 10.0, null, null),
        lts(labels("db", "1", "cmd", "get"), 100.0, null, 300.0)));
    // A label the result does not have is ignored.
    assertThat(eval("aggregate_labels(total_commands_rate, sum(nope, db))")).isEqualTo(ok(
        ResultType.TIME_SERIES_VALUES, lts(labels("db", "0"), 11.0, null, 3.0), lts(labels("db", "1"), 100.0, null,
            300.0)));
  }

  @Test
  void aggregatingAllLabelsMakesAnUnlabeledResult() {
    commands();
    assertThat(eval("relabels(aggregate_labels(total_commands_rate, sum), cmd='get', command='GET')")).isEqualTo(
        new MqeResult(ResultType.TIME_SERIES_VALUES, List.of(ts(111.0, null, 303.0)),
            "The result of expression [aggregate_labels(total_commands_rate,sum)] is not a labeled result."));
    // ...which then combines with an unlabeled series as one.
    assertThat(eval("aggregate_labels(total_commands_rate, sum) - service_cpm"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(101.0, null, 273.0)));
  }

  @Test
  void aggregateLabelsKeepsASingleValueType() {
    assertThat(eval("aggregate_labels(avg(service_percentile), max)"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 310.0)));
  }

  @Test
  void aggregateLabelsOfAnUnlabeledResultIsAnErrorThatKeepsTheResult() {
    assertThat(eval("aggregate_labels(service_cpm / 2, sum)")).isEqualTo(new MqeResult(
        ResultType.TIME_SERIES_VALUES, List.of(ts(5.0, null, 15.0)),
        "The result of expression [service_cpm/2] is not a labeled result."));
    source.labelledWithoutData("k8s_status");
    assertThat(eval("aggregate_labels(k8s_status, sum)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES));
  }

  @Test
  void relabelsRenamesKeyAndValuesInOrder() {
    assertThat(eval("relabels(service_percentile{p='50,75,90'},p='50,75,90',percentile='P50,P75,P90')"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
            lts(labels("percentile", "P50"), 100.0, 110.0, null),
            lts(labels("percentile", "P75"), 200.0, 210.0, 220.0),
            lts(labels("percentile", "P90"), 300.0, null, 320.0)));
  }

  @Test
  void relabelsLeavesOtherValuesAndLabelsAlone() {
    assertThat(eval("relabels(service_percentile, p='90,50', percentile='P90,P50')").results())
        .extracting(MqeSeries::labels)
        .containsExactly(labels("percentile", "P50"), p("75"), labels("percentile", "P90"));
    commands();
    assertThat(eval("relabels(total_commands_rate{cmd='get'}, cmd='get', c='G', db='1', d='one')").results())
        .extracting(MqeSeries::labels)
        .containsExactly(labels("c", "G", "db", "0"), labels("c", "G", "d", "one"));
  }

  @Test
  void relabelsAppliesToEveryResultType() {
    assertThat(eval("relabels(avg(service_percentile{p='75'}), p='75', q='x')"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(labels("q", "x"), 210.0)));
    assertThat(eval("relabels(aggregate_labels(service_percentile, max(p)), p='50', q='x')").results())
        .extracting(MqeSeries::labels).containsExactly(labels("q", "x"), p("75"), p("90"));
  }

  @Test
  void relabelsErrorsAreSkyWalkings() {
    assertThat(eval("relabels(service_cpm, p='1', q='2')")).isEqualTo(new MqeResult(ResultType.TIME_SERIES_VALUES,
        List.of(ts(10.0, null, 30.0)), "The result of expression [service_cpm] is not a labeled result."));
    assertThat(eval("relabels(service_percentile{p='50'}, p='50,75', q='x')")).isEqualTo(new MqeResult(
        ResultType.TIME_SERIES_VALUES, List.of(lts(p("50"), 100.0, 110.0, null)),
        "Target label [p]: the number of relabel values is not equal to the number of replace label."));
    // A blank value list renames nothing.
    assertThat(eval("relabels(service_percentile{p='50'}, p='', q='')"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, lts(p("50"), 100.0, 110.0, null)));
  }
}
