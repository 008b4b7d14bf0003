package io.sextant.core.query.mqe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** top_n: a SORTED_LIST of entity names; sampled records (RECORD_LIST) a source does not keep are refused. */
class MqeTopNTest extends MqeTestSupport {
  @Test
  void topNRanksAndPassesItsArgumentsToTheSource() {
    source.ranking("service_sla", new RankedValue("a", 9000), new RankedValue("b", 10000), new RankedValue("c", 8000));
    assertThat(eval("top_n(service_sla, 2, asc) / 100")).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(point("c", 80.0), point("a", 90.0)))));
    assertThat(source.topNMetric).isEqualTo("service_sla");
    assertThat(source.topNCount).isEqualTo(2);
    assertThat(source.topNAscending).isTrue();
    assertThat(source.topNAttributes).isEmpty();
    assertThat(source.lastEntity).isEqualTo(SERVICE);
    assertThat(source.lastBuckets).isEqualTo(BUCKETS);
  }

  @Test
  void attributeFiltersReachTheSource() {
    source.ranking("service_cpm", new RankedValue("a", 1), new RankedValue("b", 3));
    assertThat(eval("top_n(service_cpm, 10, DES, attr0='MESH', attr1!=\"x\")")).isEqualTo(ok(ResultType.SORTED_LIST,
        new MqeSeries(List.of(), List.of(point("b", 3.0), point("a", 1.0)))));
    assertThat(source.topNAscending).isFalse();
    assertThat(source.topNAttributes).containsExactly(
        new AttributeFilter("attr0", true, "MESH"), new AttributeFilter("attr1", false, "x"));
  }

  @Test
  void attributeFilterMatching() {
    assertThat(new AttributeFilter("attr1", true, "x").accepts(null)).isFalse();
    assertThat(new AttributeFilter("attr1", false, "x").accepts(null)).isTrue();
    assertThat(new AttributeFilter("attr1", true, "").accepts(null)).isTrue();
    assertThat(new AttributeFilter("attr0", true, "MESH").accepts("MESH")).isTrue();
  }

  @Test
  void errorsAreSkyWalkings() {
    assertThat(eval("top_n(service_cpm, 0, des)")).isEqualTo(error("TopN value must be > 0."));
    assertThat(eval("top_n(service_percentile, 3, des)"))
        .isEqualTo(error("Metric: [service_percentile] is labeled value, does not support top_n query."));
    assertThat(eval("top_n(nope, 3, des)")).isEqualTo(error("Metric: [nope] does not exist."));
  }

  @Test
  void sampledRecordsAreNamedAsSuch() {
    String why = "Metric: [top_n_database_statement] is a sampled record (RECORD_LIST) that Sextant does not keep, "
        + "so it cannot answer it.";
    assertThat(eval("top_n(top_n_database_statement, 10, des)")).isEqualTo(error(why));
    assertThat(eval("top_n_database_statement")).isEqualTo(error(why));
    source.kind("my_records", MetricKind.SAMPLED_RECORD);
    assertThat(eval("top_n(my_records, 10, des)").error()).startsWith("Metric: [my_records] is a sampled record");
  }
}
