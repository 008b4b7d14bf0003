package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SkyWalking 10.1's MQE functions answered by execExpression over real HTTP GraphQL, on the bookinfo mix streamed
 * over real gRPC (productpage: cpm 10, resp_time 55; reviews: cpm 8).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MqeEndToEndIT {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final String PRODUCTPAGE = "serviceName: \"productpage\", normal: true";
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());
  private TestServer sextant;
  private long time;

  @BeforeAll
  void streamTraffic() throws Exception {
    sextant = SEXTANT.server();
    long minute = (System.currentTimeMillis() / 60_000 - 3) * 60_000;
    time = minute + 1000;
    Status status = sextant.stream(Bookinfo.standard(time).messages(7));
    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  private JsonNode exec(String expression, String entity) throws Exception {
    String m = MINUTE.format(Instant.ofEpochMilli(time));
    return sextant.data("{ r: execExpression(expression: \"" + expression.replace("\"", "\\\"") + "\", entity: {"
        + entity + "}, duration: {start: \"" + m + "\", end: \"" + m + "\", step: MINUTE})"
        + " { type error results { metric { labels { key value } } values { id value } } } }").get("r");
  }

  /** type, then each series as labels=values, e.g. [TIME_SERIES_VALUES, {p=50}=[50]] or [SORTED_LIST, {}=[a:1]]. */
  private List<String> answer(String expression, String entity) throws Exception {
    JsonNode r = exec(expression, entity);
    assertThat(r.get("error").isNull()).as("%s: %s", expression, r.get("error")).isTrue();
    List<String> out = new ArrayList<>(List.of(r.get("type").asText()));
    for (JsonNode series : r.get("results")) {
      StringBuilder s = new StringBuilder("{");
      for (JsonNode kv : series.get("metric").get("labels")) {
        s.append(s.length() > 1 ? "," : "").append(kv.get("key").asText()).append('=').append(kv.get("value").asText());
      }
      List<String> values = new ArrayList<>();
      for (JsonNode v : series.get("values")) {
        String value = v.get("value").isNull() ? "null" : v.get("value").asText();
        // Bucket ids are left out; entity names (top_n) are kept.
        String id = v.get("id").isNull() ? "" : v.get("id").asText();
        values.add(id.isEmpty() || id.chars().allMatch(Character::isDigit) ? value : id + ":" + value);
      }
      out.add(s.append("}=").append(values).toString());
    }
    return out;
  }

  @Test
  void pointsAreNamedByTheFirstMillisecondOfTheirMinute() throws Exception {
    // As SkyWalking names them; the test server's time zone is UTC.
    JsonNode point = exec("service_cpm", PRODUCTPAGE).get("results").get(0).get("values").get(0);
    assertThat(point.get("id").asText()).isEqualTo(Long.toString(time - 1000));
    assertThat(point.get("value").asText()).isEqualTo("10");
  }

  @Test
  void mathematicalAndAggregationFunctions() throws Exception {
    assertThat(answer("round(service_resp_time / 7, 2)", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{}=[7.86]");
    assertThat(answer("abs(0 - service_cpm)", PRODUCTPAGE)).containsExactly("TIME_SERIES_VALUES", "{}=[10]");
    assertThat(answer("ceil(service_resp_time / 10) + floor(service_resp_time / 10)", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{}=[11]");
    assertThat(answer("count(service_cpm)", PRODUCTPAGE)).containsExactly("SINGLE_VALUE", "{}=[1]");
    assertThat(answer("service_cpm > bool 5", PRODUCTPAGE)).containsExactly("TIME_SERIES_VALUES", "{}=[1]");
  }

  @Test
  void logicalFunctions() throws Exception {
    assertThat(answer("view_as_seq(nope_cpm, service_cpm)", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{}=[10]");
    assertThat(answer("is_present(nope_cpm, service_cpm)", PRODUCTPAGE)).containsExactly("SINGLE_VALUE", "{}=[1]");
    assertThat(answer("is_present(nope_cpm)", PRODUCTPAGE)).containsExactly("SINGLE_VALUE", "{}=[0]");
  }

  @Test
  void labelFunctions() throws Exception {
    assertThat(answer("relabels(service_percentile{p='50,99'}, p='50,99', percentile='P50,P99') * 0", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{percentile=P50}=[0]", "{percentile=P99}=[0]");
    assertThat(answer("sort_label_values(service_percentile{p='50,75,90'} * 0, des, p)", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{p=90}=[0]", "{p=75}=[0]", "{p=50}=[0]");
    assertThat(answer("aggregate_labels(service_percentile{p='50,75'} * 0 + 3, sum)", PRODUCTPAGE))
        .containsExactly("TIME_SERIES_VALUES", "{}=[6]");
  }

  @Test
  void topNSortAndTrend() throws Exception {
    assertThat(answer("top_n(service_cpm, 2, des)", "")).containsExactly("SORTED_LIST",
        "{}=[productpage:10, reviews:8]");
    assertThat(answer("top_n(service_cpm, 2, des, attr0='MESH', attr1!='x') * 2", "")).containsExactly("SORTED_LIST",
        "{}=[productpage:20, reviews:16]");
    assertThat(answer("top_n(service_cpm, 2, des, attr0!='MESH')", "")).containsExactly("SORTED_LIST", "{}=[]");
    assertThat(answer("sort_values(top_n(service_cpm, 2, des), 1, asc)", "")).containsExactly("SORTED_LIST",
        "{}=[reviews:8]");
    // The minute before had no traffic: increase has nothing to subtract from.
    assertThat(answer("increase(service_cpm, 1)", PRODUCTPAGE)).containsExactly("TIME_SERIES_VALUES", "{}=[null]");
  }

  @Test
  void errorsAreSkyWalkingsAndNamed() throws Exception {
    assertThat(exec("service_cpm & 1", PRODUCTPAGE).get("error").asText())
        .isEqualTo("line 1:12 token recognition error at: '&'");
    assertThat(exec("service_cpm && 1", PRODUCTPAGE).get("error").asText())
        .isEqualTo("line 1:0 Bool Operation: The result of the left expression is not a compare result.");
    assertThat(exec("irate(service_cpm)", PRODUCTPAGE).get("error").asText())
        .isEqualTo("line 1:0 unknown function 'irate'");
    assertThat(exec("top_n(service_cpm, 2, des) + service_cpm", PRODUCTPAGE).get("error").asText())
        .isEqualTo("Unsupported binary operation: Unsupported operation.");
    assertThat(exec("top_n(top_n_database_statement, 10, des)", "").get("error").asText())
        .isEqualTo("Metric: [top_n_database_statement] is a sampled record (RECORD_LIST) that Sextant does not "
            + "keep, so it cannot answer it.");
    JsonNode relabelled = exec("relabels(service_cpm, p='1', q='2')", PRODUCTPAGE);
    assertThat(relabelled.get("type").asText()).isEqualTo("TIME_SERIES_VALUES");
    assertThat(relabelled.get("error").asText())
        .isEqualTo("The result of expression [service_cpm] is not a labeled result.");
  }
}
