package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.id.EntityIds;
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
 * The metric operations older than MQE (metrics-v2 as swctl 0.14 sends them, metric v1,
 * aggregation, records) over real HTTP, after the bookinfo mix went in through the real mesh
 * receiver: the exact values sent come out, and bad input gets the reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsV2IT {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter BUCKET = DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);
  private static final String PRODUCTPAGE = "scope: Service, serviceName: \"productpage\", normal: true";
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());
  private TestServer sextant;
  private long time;

  @BeforeAll
  void streamTraffic() throws Exception {
    sextant = SEXTANT.server();
    long minute = (System.currentTimeMillis() / 60_000 - 3) * 60_000;
    time = minute + 1000;
    assertThat(sextant.stream(Bookinfo.standard(time).messages(7)).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
  }

  /** The minute of the traffic and the empty minute after it. */
  private String twoMinutes() {
    return "{start: \"" + MINUTE.format(Instant.ofEpochMilli(time)) + "\", end: \""
        + MINUTE.format(Instant.ofEpochMilli(time + 60_000)) + "\", step: MINUTE}";
  }

  private String bucket(long offsetMillis) {
    return BUCKET.format(Instant.ofEpochMilli(time + offsetMillis));
  }

  private JsonNode values(String name, String entity) throws Exception {
    return sextant.data("{ r: readMetricsValues(condition: {name: \"" + name + "\", entity: {" + entity
        + "}}, duration: " + twoMinutes() + ") { label values { values { id value isEmptyValue } } } }").get("r");
  }

  private long value(String name, String entity) throws Exception {
    return sextant.data("{ r: readMetricsValue(condition: {name: \"" + name + "\", entity: {" + entity
        + "}}, duration: " + twoMinutes() + ") }").get("r").asLong();
  }

  private String error(String query) throws Exception {
    JsonNode r = sextant.graphql(query);
    assertThat(r.get("errors")).as("errors of %s", query).isNotNull();
    return r.get("errors").get(0).get("message").asText();
  }

  @Test
  void readMetricsValuesAnswersEachMinuteWithEmptyOnesMarked() throws Exception {
    JsonNode r = values("service_cpm", PRODUCTPAGE);
    assertThat(r.get("label").isNull()).isTrue();
    JsonNode points = r.get("values").get("values");
    assertThat(points).hasSize(2);
    String id = EntityIds.serviceId("productpage", true);
    assertThat(points.get(0).toString())
        .isEqualTo("{\"id\":\"" + bucket(0) + "_" + id + "\",\"value\":10,\"isEmptyValue\":false}");
    assertThat(points.get(1).toString())
        .isEqualTo("{\"id\":\"" + bucket(60_000) + "_" + id + "\",\"value\":0,\"isEmptyValue\":true}");
    assertThat(values("service_resp_time", PRODUCTPAGE).get("values").get("values").get(0).get("value").asLong())
        .isEqualTo(55);
    assertThat(values("service_sla", "serviceName: \"reviews\", normal: true").get("values").get("values").get(0)
        .get("value").asLong()).isEqualTo(8750);
    assertThat(values("service_instance_sla", "serviceName: \"reviews\", serviceInstanceName: \"reviews-v1-0\"")
        .get("values").get("values").get(0).get("value").asLong()).isEqualTo(7500);
    assertThat(values("endpoint_cpm", "serviceName: \"reviews\", endpointName: \"GET:/reviews/0\"")
        .get("values").get("values").get(0).get("value").asLong()).isEqualTo(8);
    assertThat(values("service_relation_server_resp_time",
        "scope: ServiceRelation, serviceName: \"productpage\", normal: true, destServiceName: \"reviews\","
            + " destNormal: true").get("values").get("values").get(0).get("value").asLong()).isEqualTo(45);
  }

  @Test
  void swctlEntitiesWithEmptyFieldsAreRead() throws Exception {
    // swctl 0.14 sends every name field, empty when not given, and a scope guessed from them.
    String swctl = "scope: Service, serviceName: \"productpage\", normal: true, serviceInstanceName: \"\","
        + " endpointName: \"\", destServiceName: \"\", destNormal: false, destServiceInstanceName: \"\","
        + " destEndpointName: \"\"";
    assertThat(values("service_cpm", swctl).get("values").get("values").get(0).get("value").asLong()).isEqualTo(10);
    // The metric decides the scope, as in SkyWalking: swctl says Endpoint when given --endpoint-name.
    String guessed = "scope: Endpoint, serviceName: \"productpage\", endpointName: \"GET:/productpage\"";
    assertThat(values("service_cpm", guessed).get("values").get("values").get(0).get("value").asLong())
        .isEqualTo(10);
  }

  @Test
  void singleValuesAverageTheMinutesWithData() throws Exception {
    assertThat(value("service_cpm", PRODUCTPAGE)).isEqualTo(10);
    assertThat(value("service_resp_time", "serviceName: \"details\"")).isEqualTo(7);
    assertThat(value("service_cpm", "serviceName: \"istio-ingressgateway\"")).isZero();
    JsonNode nullable = sextant.data("{ a: readNullableMetricsValue(condition: {name: \"service_sla\", entity: {"
        + PRODUCTPAGE + "}}, duration: " + twoMinutes() + ") { value isEmptyValue }"
        + " b: readNullableMetricsValue(condition: {name: \"service_sla\", entity: {serviceName: \"mongodb\"}},"
        + " duration: " + twoMinutes() + ") { value isEmptyValue } }");
    assertThat(nullable.get("a").toString()).isEqualTo("{\"value\":8000,\"isEmptyValue\":false}");
    assertThat(nullable.get("b").toString()).isEqualTo("{\"value\":0,\"isEmptyValue\":true}");
  }

  @Test
  void labeledValuesCarryPercentileLabels() throws Exception {
    String query = "{ r: readLabeledMetricsValues(condition: {name: \"service_percentile\", entity: {" + PRODUCTPAGE
        + "}}, labels: %s, duration: " + twoMinutes() + ") { label values { values { id value isEmptyValue } } } }";
    JsonNode all = sextant.data(query.formatted("[]")).get("r");
    List<String> labels = new ArrayList<>();
    all.forEach(v -> labels.add(v.get("label").asText()));
    assertThat(labels).containsExactly("{p=50}", "{p=75}", "{p=90}", "{p=95}", "{p=99}");
    int[] latencies = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    double[] ranks = {0.5, 0.75, 0.9, 0.95, 0.99};
    for (int i = 0; i < ranks.length; i++) {
      double expected = latencies[(int) Math.floor(ranks[i] * (latencies.length - 1))];
      JsonNode points = all.get(i).get("values").get("values");
      assertThat(points.get(0).get("value").asDouble()).isCloseTo(expected, within(expected * 0.01 + 0.5));
      assertThat(points.get(1).get("isEmptyValue").asBoolean()).isTrue();
    }
    // Labels come back as asked: by value, by key=value or by index (v1 clients).
    JsonNode some = sextant.data(query.formatted("[\"99\", \"{p=50}\", \"1\"]")).get("r");
    assertThat(some).hasSize(3);
    assertThat(some.get(0).get("label").asText()).isEqualTo("99");
    assertThat(some.get(0).get("values")).isEqualTo(all.get(4).get("values"));
    assertThat(some.get(1).get("label").asText()).isEqualTo("{p=50}");
    assertThat(some.get(1).get("values")).isEqualTo(all.get(0).get("values"));
    assertThat(some.get(2).get("label").asText()).isEqualTo("1");
    assertThat(some.get(2).get("values")).isEqualTo(all.get(1).get("values"));
    // swctl sends [""] when no --labels is given: all labels.
    assertThat(sextant.data(query.formatted("[\"\"]")).get("r")).isEqualTo(all);
    assertThat(error(query.formatted("[\"42\"]"))).isEqualTo(
        "metric 'service_percentile' has no label 42; its labels are p=[50, 75, 90, 95, 99] (or their indexes 0..4)");
  }

  @Test
  void sortMetricsRanksByAverage() throws Exception {
    String query = "{ r: sortMetrics(condition: {name: \"%s\", %s topN: %d, order: %s}, duration: "
        + twoMinutes() + ") { name id value refId } }";
    JsonNode des = sextant.data(query.formatted("service_cpm", "scope: Service,", 3, "DES")).get("r");
    assertThat(names(des)).containsExactly("productpage=10", "reviews=8", "details=6");
    assertThat(des.get(0).get("id").asText()).isEqualTo(EntityIds.serviceId("productpage", true));
    assertThat(des.get(0).get("refId").isNull()).isTrue();
    assertThat(names(sextant.data(query.formatted("service_cpm", "", 10, "ASC")).get("r")))
        .containsExactly("ratings=4", "details=6", "reviews=8", "productpage=10");
    // Under a parent service, instances go by their own name; in a global list, with their service's.
    assertThat(names(sextant.data(query.formatted("service_instance_sla",
        "parentService: \"reviews\", normal: true, scope: ServiceInstance,", 5, "DES")).get("r")))
        .containsExactly("reviews-v2-0=10000", "reviews-v1-0=7500");
    assertThat(names(sextant.data(query.formatted("service_instance_sla", "parentService: \"\", normal: false,",
        1, "ASC")).get("r"))).containsExactly("reviews - reviews-v1-0=7500");
    assertThat(names(sextant.data(query.formatted("endpoint_cpm", "", 1, "DES")).get("r")))
        .containsExactly("productpage - GET:/productpage=10");
    // MQE's top_n ranks the same way.
    JsonNode topN = sextant.data("{ r: execExpression(expression: \"top_n(service_cpm,3,des)\", entity: {},"
        + " duration: " + twoMinutes() + ") { error results { values { id value } } } }").get("r");
    List<String> mqe = new ArrayList<>();
    topN.get("results").get(0).get("values")
        .forEach(v -> mqe.add(v.get("id").asText() + "=" + v.get("value").asText()));
    assertThat(mqe).containsExactly("productpage=10", "reviews=8", "details=6");
  }

  private static List<String> names(JsonNode records) {
    List<String> out = new ArrayList<>();
    records.forEach(r -> out.add(r.get("name").asText() + "=" + r.get("value").asText()));
    return out;
  }

  @Test
  void v1AndAggregationOperationsReadTheSameValues() throws Exception {
    String pp = EntityIds.serviceId("productpage", true);
    String reviews = EntityIds.serviceId("reviews", true);
    JsonNode v = sextant.data("{ r: getValues(metric: {name: \"service_cpm\", ids: [\"" + pp + "\", \"" + reviews
        + "\"]}, duration: " + twoMinutes() + ") { values { id value isEmptyValue } } }").get("r").get("values");
    assertThat(v.toString()).isEqualTo("[{\"id\":\"" + pp + "\",\"value\":10,\"isEmptyValue\":false},"
        + "{\"id\":\"" + reviews + "\",\"value\":8,\"isEmptyValue\":false}]");
    JsonNode linear = sextant.data("{ r: getLinearIntValues(metric: {name: \"service_cpm\", id: \"" + pp
        + "\"}, duration: " + twoMinutes() + ") { values { id value } } }").get("r").get("values");
    assertThat(linear.get(0).get("value").asLong()).isEqualTo(10);
    assertThat(linear.get(1).get("value").asLong()).isZero();
    JsonNode lines = sextant.data("{ r: getMultipleLinearIntValues(metric: {name: \"service_percentile\", id: \""
        + pp + "\"}, numOfLinear: 5, duration: " + twoMinutes() + ") { values { value } } }").get("r");
    assertThat(lines).hasSize(5);
    JsonNode subset = sextant.data("{ r: getSubsetOfMultipleLinearIntValues(metric: {name: \"service_percentile\","
        + " id: \"" + pp + "\"}, linearIndex: [4], duration: " + twoMinutes() + ") { values { value } } }").get("r");
    assertThat(subset).containsExactly(lines.get(4));

    JsonNode top = sextant.data("{ r: getServiceTopN(name: \"service_cpm\", topN: 2, duration: " + twoMinutes()
        + ", order: DES) { name id value } }").get("r");
    assertThat(top.toString()).isEqualTo("[{\"name\":\"productpage\",\"id\":\"" + pp + "\",\"value\":10},"
        + "{\"name\":\"reviews\",\"id\":\"" + reviews + "\",\"value\":8}]");
    JsonNode underReviews = sextant.data("{ r: getServiceInstanceTopN(serviceId: \"" + reviews
        + "\", name: \"service_instance_sla\", topN: 5, duration: " + twoMinutes() + ", order: ASC) { name value } }")
        .get("r");
    assertThat(underReviews.toString())
        .isEqualTo("[{\"name\":\"reviews-v1-0\",\"value\":7500},{\"name\":\"reviews-v2-0\",\"value\":10000}]");
    assertThat(sextant.data("{ r: getAllEndpointTopN(name: \"endpoint_cpm\", topN: 1, duration: " + twoMinutes()
        + ", order: DES) { name value } }").get("r").toString())
        .isEqualTo("[{\"name\":\"productpage - GET:/productpage\",\"value\":10}]");
  }

  @Test
  void aPageOfReadsInOneRequestAnswersEachAsAlone() throws Exception {
    // Dashboards older than MQE ask for a page as aliased fields of one request; they run at once.
    String d = ", duration: " + twoMinutes() + ")";
    List<String> fields = List.of(
        "readMetricsValues(condition: {name: \"service_cpm\", entity: {" + PRODUCTPAGE + "}}" + d
            + " { values { values { id value isEmptyValue } } }",
        "readMetricsValue(condition: {name: \"service_sla\", entity: {serviceName: \"reviews\"}}" + d,
        "readNullableMetricsValue(condition: {name: \"service_resp_time\", entity: {" + PRODUCTPAGE + "}}" + d
            + " { value isEmptyValue }",
        "readLabeledMetricsValues(condition: {name: \"service_percentile\", entity: {" + PRODUCTPAGE
            + "}}, labels: [\"50\", \"99\"]" + d + " { label values { values { value } } }",
        "sortMetrics(condition: {name: \"service_cpm\", topN: 3, order: DES}" + d + " { name value }");
    StringBuilder page = new StringBuilder("{");
    for (int i = 0; i < fields.size(); i++) {
      page.append(" f").append(i).append(": ").append(fields.get(i));
    }
    JsonNode together = sextant.data(page.append(" }").toString());
    for (int i = 0; i < fields.size(); i++) {
      JsonNode alone = sextant.data("{ f: " + fields.get(i) + " }").get("f");
      assertThat(together.get("f" + i)).as(fields.get(i)).isEqualTo(alone);
    }
    assertThat(together.get("f1").asLong()).isEqualTo(8750);
    assertThat(together.get("f4").toString()).isEqualTo(
        "[{\"name\":\"productpage\",\"value\":\"10\"},{\"name\":\"reviews\",\"value\":\"8\"},"
            + "{\"name\":\"details\",\"value\":\"6\"}]");
    // The v2 fields are non-null: one refused field nulls the whole answer, as GraphQL requires.
    JsonNode withError = sextant.graphql(page.deleteCharAt(page.length() - 1).append(" bad: readMetricsValue("
        + "condition: {name: \"nope_cpm\", entity: {" + PRODUCTPAGE + "}}" + d + " }").toString());
    assertThat(withError.get("data").isNull()).isTrue();
    assertThat(withError.get("errors").get(0).get("message").asText()).isEqualTo("Metric: [nope_cpm] does not exist.");
  }

  @Test
  void badInputGetsTheReason() throws Exception {
    String d = ", duration: " + twoMinutes() + ")";
    String values = " { values { values { value } } } }";
    assertThat(error("{ readMetricsValues(condition: {name: \"nope_cpm\", entity: {" + PRODUCTPAGE + "}}" + d
        + values)).isEqualTo("Metric: [nope_cpm] does not exist.");
    assertThat(error("{ readMetricsValues(condition: {name: \"service_instance_cpm\", entity: {serviceName: "
        + "\"reviews\", serviceInstanceName: \"\"}}" + d + values))
        .isEqualTo("metric 'service_instance_cpm' is a service_instance metric: the entity needs serviceInstanceName");
    assertThat(error("{ readMetricsValue(condition: {name: \"service_cpm\", entity: {normal: true}}" + d + " }"))
        .isEqualTo("metric 'service_cpm' is a service metric: the entity needs serviceName");
    assertThat(error("{ readMetricsValues(condition: {name: \"service_percentile\", entity: {" + PRODUCTPAGE + "}}" + d
        + values)).isEqualTo("metric 'service_percentile' is a labeled metric (LABELED_VALUE, label 'p'): read it"
        + " with readLabeledMetricsValues, not readMetricsValues");
    assertThat(error("{ readLabeledMetricsValues(condition: {name: \"service_cpm\", entity: {" + PRODUCTPAGE
        + "}}, labels: []" + d + " { label } }")).isEqualTo("metric 'service_cpm' is not a labeled metric"
        + " (REGULAR_VALUE): read it with readMetricsValues, not readLabeledMetricsValues");
    assertThat(error("{ readHeatMap(condition: {name: \"service_resp_time\", entity: {" + PRODUCTPAGE + "}}" + d
        + " { buckets { min max } } }")).isEqualTo("metric 'service_resp_time' is not a heatmap metric (it is a"
        + " longAvg metric): a heatmap needs a histogram metric, and Sextant has none");
    assertThat(error("{ readRecords(condition: {name: \"top_n_database_statement\", parentEntity: {"
        + PRODUCTPAGE + "}, topN: 10, order: DES}" + d + " { name value } }"))
        .isEqualTo("record 'top_n_database_statement' is not one Sextant has: it keeps "
            + "[sampled_slow_trace_record, sampled_status_4xx_trace_record, sampled_status_5xx_trace_record]");
    assertThat(error("{ sortMetrics(condition: {name: \"service_relation_server_cpm\", topN: 5, order: DES}" + d
        + " { name } }")).isEqualTo("metric 'service_relation_server_cpm' is a ServiceRelation metric: sorting"
        + " accepts only Service, ServiceInstance and Endpoint metrics");
    assertThat(error("{ sortMetrics(condition: {name: \"service_cpm\", topN: 0, order: DES}" + d + " { name } }"))
        .isEqualTo("topN must be between 1 and 1000, was 0");
    assertThat(error("{ getValues(metric: {name: \"service_cpm\", ids: [\"not-an-id\"]}" + d
        + " { values { value } } }")).isEqualTo("malformed service id: not-an-id");
  }
}
