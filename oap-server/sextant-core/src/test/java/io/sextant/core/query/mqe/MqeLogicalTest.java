package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** view_as_seq and is_present. */
class MqeLogicalTest extends MqeTestSupport {
  @Test
  void viewAsSeqAnswersTheFirstExpressionWithAValue() {
    assertThat(eval("view_as_seq(all_null, service_cpm, service_sla)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(10.0, null, 30.0)));
    assertThat(eval("view_as_seq([service_sla, service_cpm])"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(10000.0, 9000.0, 9500.0)));
    assertThat(eval("view_as_seq(avg(all_null), avg(service_cpm) * 2)"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 40.0)));
  }

  @Test
  void viewAsSeqSkipsExpressionsThatFail() {
    assertThat(eval("view_as_seq(not_existing, service_cpm)"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(10.0, null, 30.0)));
  }

  @Test
  void withoutAnyValueViewAsSeqAnswersTheFirstExpression() {
    assertThat(eval("view_as_seq(all_null, service_percentile{p='1'})"))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(null, null, null)));
    assertThat(eval("view_as_seq(not_existing, all_null)")).isEqualTo(error("Metric: [not_existing] does not exist."));
  }

  @Test
  void isPresentIsOneIfAnyExpressionHasAValue() {
    assertThat(eval("is_present(not_existing, all_null, service_cpm)"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("is_present(not_existing, all_null)"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 0.0)));
    assertThat(eval("is_present([service_percentile{p='50'}])"))
        .isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
    assertThat(eval("is_present(all_null) * 5 + 1")).isEqualTo(ok(ResultType.SINGLE_VALUE, single(List.of(), 1.0)));
  }
}
