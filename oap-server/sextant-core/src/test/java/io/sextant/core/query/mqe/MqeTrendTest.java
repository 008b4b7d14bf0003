package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.time.Step;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * increase and rate: each bucket of the window gets value(t) - value(t - range), read from range buckets before the
 * window; rate divides by the range in seconds of the query step.
 */
class MqeTrendTest extends MqeTestSupport {
  @Test
  void increaseReadsTheBucketsBeforeTheWindow() {
    source.bucketed("requests", Map.of(202611221028L, 1.0, 202611221029L, 4.0,
        202611221030L, 10.0, 202611221031L, 12.0, 202611221032L, 30.0));
    assertThat(eval("increase(requests, 2)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(9.0, 8.0, 20.0)));
    assertThat(source.lastBuckets).containsExactly(202611221028L, 202611221029L,
        202611221030L, 202611221031L, 202611221032L);
    assertThat(eval("increase(requests, 1)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(6.0, 2.0, 18.0)));
  }

  @Test
  void rateIsPerSecondOfTheRange() {
    source.bucketed("requests", Map.of(202611221028L, 0.0, 202611221029L, 60.0,
        202611221030L, 240.0, 202611221031L, 300.0, 202611221032L, 300.0));
    // (240 - 0) / 120 s, (300 - 60) / 120 s, (300 - 240) / 120 s
    assertThat(eval("rate(requests, 2)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(2.0, 2.0, 0.5)));
  }

  @Test
  void rateOverHoursCountsHoursOfSeconds() {
    source.bucketed("requests", Map.of(2026112209L, 0.0, 2026112210L, 7200.0));
    MqeResult r = Mqe.evaluate("rate(requests, 1)", source, SERVICE, List.of(2026112210L), Step.HOUR);
    assertThat(r).isEqualTo(ok(ResultType.TIME_SERIES_VALUES,
        new MqeSeries(List.of(), List.of(point("2026112210", 2.0)))));
    assertThat(source.lastBuckets).containsExactly(2026112209L, 2026112210L);
  }

  @Test
  void anEmptyEndOfTheRangeGivesAnEmptyValue() {
    source.bucketed("requests", Map.of(202611221029L, 4.0, 202611221030L, 10.0, 202611221032L, 30.0));
    // 030 - 029 = 6; 031 is empty; 032 - 031: 031 empty
    assertThat(eval("increase(requests, 1)")).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, ts(6.0, null, null)));
  }

  @Test
  void labelledMetricsKeepTheirLabels() {
    FakeSource labelled = new FakeSource() {
      @Override
      public List<Series> read(String metric, Map<String, String> sel, MqeEntity e, List<Long> bk, Step s) {
        super.read(metric, sel, e, bk, s);
        return List.of(new Series(p("50"), new Double[] {1.0, 2.0, 4.0, 8.0}));
      }
    }.labelledWithoutData("latency");
    MqeResult r = Mqe.evaluate("increase(latency{p='50'}, 1)", labelled, SERVICE, BUCKETS, Step.MINUTE);
    assertThat(r).isEqualTo(ok(ResultType.TIME_SERIES_VALUES, lts(p("50"), 1.0, 2.0, 4.0)));
    assertThat(labelled.lastSelector).isEqualTo(Map.of("p", "50"));
  }

  @Test
  void rangeErrors() {
    source.bucketed("requests", Map.of());
    assertThat(eval("increase(requests, 0)")).isEqualTo(error("The trend range must be greater than 0."));
    assertThat(eval("rate(requests, 10001)")).isEqualTo(error("The trend range must be at most 10000."));
    assertThat(eval("rate(nope, 1)")).isEqualTo(error("Metric: [nope] does not exist."));
  }

  @Test
  void trendOfNoBucketsIsEmpty() {
    source.bucketed("requests", Map.of());
    assertThat(Mqe.evaluate("increase(requests, 2)", source, SERVICE, List.of(), Step.MINUTE))
        .isEqualTo(ok(ResultType.TIME_SERIES_VALUES, new MqeSeries(List.of(), List.of())));
  }
}
