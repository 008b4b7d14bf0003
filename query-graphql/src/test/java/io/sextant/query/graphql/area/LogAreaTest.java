package io.sextant.query.graphql.area;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.ExecutionInput;
import graphql.GraphQL;
import io.sextant.api.component.CheckResult;
import io.sextant.api.id.EntityIds;
import io.sextant.api.log.LogEntry;
import io.sextant.api.log.LogRecords;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import io.sextant.query.graphql.SextantGraphql;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The log queries booster-ui, swctl and Horizon send, over the engine and a memory store: the
 * answer shapes of SkyWalking's {@code Logs}, the conditions' rules, and what stays refused.
 */
class LogAreaTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:30:00Z"), ZoneOffset.UTC);
  private static final String DURATION = "{start: \"2026-11-22 1000\", end: \"2026-11-22 1030\", step: MINUTE}";
  private static final String FIELDS = "logs { serviceName serviceId serviceInstanceName serviceInstanceId"
      + " endpointName endpointId traceId timestamp contentType content tags { key value } }";
  private static final long T = Instant.parse("2026-11-22T10:15:00Z").toEpochMilli();
  private final String reviews = EntityIds.serviceId("reviews", true);
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(100_000));
  private final GraphQL graphql;

  LogAreaTest() {
    storage.records().write(List.of(
        LogRecords.toRecord("a", new LogEntry("reviews", "reviews-1", "GET:/reviews", T, "JSON",
            "{\"code\":503}", List.of(new LogEntry.Tag("status.code", "503"), new LogEntry.Tag("response.flag",
                "UF")))),
        LogRecords.toRecord("b", new LogEntry("ratings", "", "", T + 1000, "TEXT", "no healthy upstream",
            List.of(new LogEntry.Tag("response.flag", "UH")))),
        // Outside the window (10:31).
        LogRecords.toRecord("c", new LogEntry("reviews", "reviews-1", "", T + 16 * 60_000, "TEXT", "late",
            List.of()))));
    QueryServices query = QueryServices.over(storage, MetricFamilies.catalog(100));
    QueryLimits limits = new QueryLimits(15, 5000, 10_000);
    List<SchemaArea> areas = SextantGraphql.standardAreas(query, new AlarmQueries(() -> storage), limits, "test",
        () -> CheckResult.OK, ZoneOffset.UTC, CLOCK, Runnable::run);
    graphql = SextantGraphql.build(areas, limits);
  }

  private Map<String, Object> execute(String query) {
    return graphql.execute(ExecutionInput.newExecutionInput(query).build()).toSpecification();
  }

  @SuppressWarnings("unchecked")
  private <T> T data(String query, String field) {
    Map<String, Object> answer = execute(query);
    assertThat(answer).as(query).doesNotContainKey("errors");
    return (T) ((Map<String, Object>) answer.get("data")).get(field);
  }

  private String error(String query) {
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> errors = (List<Map<String, Object>>) execute(query).get("errors");
    assertThat(errors).as(query).isNotEmpty();
    return (String) errors.get(0).get("message");
  }

  @Test
  void booster_uiServiceLogsInSkyWalkingsShape() {
    Map<String, Object> logs = data("{ queryLogs(condition: "
        + "{serviceId: \"" + reviews + "\", queryDuration: " + DURATION + ", keywordsOfContent: [],"
        + " excludingKeywordsOfContent: [], paging: {pageNum: 1, pageSize: 21}}) { errorReason " + FIELDS
        + " debuggingTrace { traceId } } }", "queryLogs");
    assertThat(logs).containsEntry("errorReason", null).containsEntry("debuggingTrace", null);
    String instance = EntityIds.instanceId(reviews, "reviews-1");
    String endpoint = EntityIds.endpointId(reviews, "GET:/reviews");
    Map<String, Object> log = new java.util.LinkedHashMap<>();
    log.put("serviceName", "reviews");
    log.put("serviceId", reviews);
    log.put("serviceInstanceName", "reviews-1");
    log.put("serviceInstanceId", instance);
    log.put("endpointName", "GET:/reviews");
    log.put("endpointId", endpoint);
    log.put("traceId", null);
    log.put("timestamp", T);
    log.put("contentType", "JSON");
    log.put("content", "{\"code\":503}");
    log.put("tags", List.of(Map.of("key", "status.code", "value", "503"),
        Map.of("key", "response.flag", "value", "UF")));
    assertThat(logs.get("logs")).isEqualTo(List.of(log));
  }

  @Test
  @SuppressWarnings("unchecked")
  void swctlsEmptyIdsAndEmptyTraceFilterNothing() {
    Map<String, Object> logs = data("{ result: queryLogs(condition: {serviceId: \"\", serviceInstanceId: \"\","
        + " endpointId: \"\", relatedTrace: {traceId: \"\"}, queryDuration: " + DURATION + ","
        + " paging: {pageNum: 1, pageSize: 15}}) { " + FIELDS + " } }", "result");
    assertThat((List<Map<String, Object>>) logs.get("logs")).extracting(l -> l.get("serviceName"))
        .containsExactly("ratings", "reviews");
    Map<String, Object> ratings = ((List<Map<String, Object>>) logs.get("logs")).get(0);
    assertThat(ratings).containsEntry("serviceInstanceName", null).containsEntry("endpointId", null)
        .containsEntry("contentType", "TEXT");
  }

  @Test
  @SuppressWarnings("unchecked")
  void horizonsSecondStepTagsAndKeywords() {
    String seconds = "{start: \"2026-11-22 101500\", end: \"2026-11-22 101500\", step: SECOND}";
    Map<String, Object> logs = data("{ data: queryLogs(condition: {queryDuration: " + seconds
        + ", paging: {pageNum: 1, pageSize: 50}}) { " + FIELDS + " } }", "data");
    assertThat((List<Object>) logs.get("logs")).hasSize(1);
    logs = data("{ data: queryLogs(condition: {queryDuration: " + DURATION + ", tags: [{key: \"response.flag\","
        + " value: \" UH \"}], keywordsOfContent: [\"HEALTHY\"], paging: {pageNum: 1, pageSize: 50}}) { "
        + FIELDS + " } }", "data");
    assertThat((List<Map<String, Object>>) logs.get("logs")).extracting(l -> l.get("serviceName"))
        .containsExactly("ratings");
    logs = data("{ data: queryLogs(condition: {queryDuration: " + DURATION + ", queryOrder: ASC,"
        + " paging: {pageSize: 1}}) { " + FIELDS + " } }", "data");
    assertThat((List<Map<String, Object>>) logs.get("logs")).extracting(l -> l.get("serviceName"))
        .containsExactly("reviews");
  }

  @Test
  @SuppressWarnings("unchecked")
  void byNameAsByIds() {
    Map<String, Object> logs = data("{ queryLogsByName(condition: {instance: {serviceName: \"reviews\","
        + " instanceName: \"reviews-1\"}, queryDuration: " + DURATION + ", paging: {pageNum: 1, pageSize: 5}})"
        + " { " + FIELDS + " } }", "queryLogsByName");
    assertThat((List<Map<String, Object>>) logs.get("logs")).extracting(l -> l.get("content"))
        .containsExactly("{\"code\":503}");
    logs = data("{ queryLogsByName(condition: {service: {serviceName: \"nobody\"}, queryDuration: " + DURATION
        + ", paging: {pageNum: 1, pageSize: 5}}) { " + FIELDS + " } }", "queryLogsByName");
    assertThat((List<Object>) logs.get("logs")).isEmpty();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aTraceConditionAnswersNoLogsAndAConditionNeedsAWindow() {
    Map<String, Object> logs = data("{ queryLogs(condition: {relatedTrace: {traceId: \"t1\"},"
        + " paging: {pageNum: 1, pageSize: 5}}) { " + FIELDS + " } }", "queryLogs");
    assertThat((List<Object>) logs.get("logs")).isEmpty();
    assertThat(error("{ queryLogs(condition: {paging: {pageNum: 1, pageSize: 5}}) { " + FIELDS + " } }"))
        .isEqualTo(LogArea.NO_WINDOW);
    assertThat(error("{ queryLogs { " + FIELDS + " } }")).isEqualTo(LogArea.NO_WINDOW);
    assertThat(error("{ queryLogs(condition: {queryDuration: " + DURATION + ", paging: {pageNum: 200,"
        + " pageSize: 100}}) { " + FIELDS + " } }")).contains("must not exceed 10000");
  }

  @Test
  @SuppressWarnings("unchecked")
  void keywordSupportAndTagAutocompletion() {
    assertThat((Boolean) data("query queryLogsByKeywords { support: supportQueryLogsByKeywords }", "support"))
        .isTrue();
    assertThat((List<String>) data("{ tagKeys:"
        + " queryLogTagAutocompleteKeys(duration: " + DURATION + ") }", "tagKeys"))
        .containsExactly("level", "status.code", "response.flag");
    assertThat((List<String>) data("{ tagValues: queryLogTagAutocompleteValues(tagKey: \"response.flag\","
        + " duration: " + DURATION + ") }", "tagValues")).containsExactly("UF", "UH");
  }

  @Test
  void lalTestingStaysRefused() {
    assertThat(error("{ test(requests: {log: \"{}\", dsl: \"filter {}\"}) { log { content } } }"))
        .contains("is not supported by Sextant: LAL");
  }
}
