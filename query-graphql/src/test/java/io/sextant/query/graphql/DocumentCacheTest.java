package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.ExecutionInput;
import graphql.GraphQL;
import io.sextant.api.component.CheckResult;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cached documents answer as freshly parsed ones do: the same data with other variables, the same
 * syntax and validation errors, and the depth and complexity limits still refuse a request sent
 * twice. The cache keeps at most its bound.
 */
class DocumentCacheTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:30:00Z"), ZoneOffset.UTC);
  private static final QueryLimits LIMITS = new QueryLimits(6, 40, 10_000);

  private static GraphQL engine(int cachedDocuments) {
    MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1000));
    QueryServices query = QueryServices.over(storage, MetricFamilies.catalog(100));
    List<SchemaArea> areas = SextantGraphql.standardAreas(query, new AlarmQueries(() -> storage), LIMITS, "test",
        () -> CheckResult.OK, ZoneOffset.UTC, CLOCK, Runnable::run);
    return SextantGraphql.build(areas, LIMITS, cachedDocuments);
  }

  private final GraphQL cached = engine(2);
  private final GraphQL plain = engine(0);

  private static Map<String, Object> run(GraphQL graphql, String query, Map<String, Object> variables) {
    return graphql.execute(ExecutionInput.newExecutionInput(query).variables(variables).build()).toSpecification();
  }

  private void assertSameTwice(String query, Map<String, Object> variables) {
    Map<String, Object> expected = run(plain, query, variables);
    assertThat(run(cached, query, variables)).isEqualTo(expected);
    assertThat(run(cached, query, variables)).isEqualTo(expected);
  }

  @Test
  void answersAndErrorsAreThoseOfAFreshParse() {
    String expression = "query q($e: String!) { execExpression(expression: $e, entity: {serviceName: \"a\","
        + " normal: true, scope: Service}, duration: {start: \"2026-11-22 1000\", end: \"2026-11-22 1005\","
        + " step: MINUTE}) { type error results { values { id value } } } }";
    assertSameTwice(expression, Map.of("e", "service_cpm"));
    assertSameTwice(expression, Map.of("e", "no_such_metric"));
    assertSameTwice("{ getTimeInfo { timezone currentTimestamp } }", Map.of());
    assertSameTwice("{ getTimeInfo { timezone", Map.of()); // syntax error
    assertSameTwice("{ getTimeInfo { noSuchField } }", Map.of()); // validation error
  }

  @Test
  void limitsStillRefuseACachedDocument() {
    // 41 fields: past the complexity limit of 40, every time it is sent.
    StringBuilder wide = new StringBuilder("{");
    for (int i = 0; i < 21; i++) {
      wide.append(" t").append(i).append(": getTimeInfo { timezone }");
    }
    String tooComplex = wide.append(" }").toString();
    String tooDeep = "{ getMenuItems { subItems { subItems { subItems { subItems { subItems { title } } } } } } }";
    for (String query : List.of(tooComplex, tooDeep)) {
      Map<String, Object> first = run(cached, query, Map.of());
      assertThat(first).containsKey("errors").doesNotContainKey("data");
      assertThat(run(cached, query, Map.of())).isEqualTo(first).isEqualTo(run(plain, query, Map.of()));
    }
  }

  /**
   * An operation once found within the limits is not checked again, but only that operation, and
   * only when no variable can select more fields of it.
   */
  @Test
  void limitsStillRefuseWhatAnotherRequestOfTheSameTextWouldPassThem() {
    StringBuilder wide = new StringBuilder("query q($all: Boolean!) { t: getTimeInfo { timezone }");
    for (int i = 0; i < 20; i++) {
      wide.append(" t").append(i).append(": getTimeInfo @include(if: $all) { timezone }");
    }
    String switchable = wide.append(" }").toString();
    String twoOperations = "query shallow { getTimeInfo { timezone } }"
        + " query deep { getMenuItems { subItems { subItems { subItems { subItems { subItems { title } } } } } } }";
    for (int round = 0; round < 2; round++) {
      assertThat(run(cached, switchable, Map.of("all", false))).doesNotContainKey("errors");
      assertThat(run(cached, switchable, Map.of("all", true))).as("41 fields with $all")
          .containsKey("errors").isEqualTo(run(plain, switchable, Map.of("all", true)));
      assertThat(operation(cached, twoOperations, "shallow")).doesNotContainKey("errors");
      assertThat(operation(cached, twoOperations, "deep")).as("the deep operation of a document passed once")
          .containsKey("errors").isEqualTo(operation(plain, twoOperations, "deep"));
    }
  }

  private static Map<String, Object> operation(GraphQL graphql, String query, String operationName) {
    return graphql.execute(ExecutionInput.newExecutionInput(query).operationName(operationName).build())
        .toSpecification();
  }

  @Test
  void keepsAtMostItsBound() {
    DocumentCache cache = new DocumentCache(2);
    for (String q : List.of("{ a }", "{ b }", "{ c }", "{ a }")) {
      cache.getDocumentAsync(ExecutionInput.newExecutionInput(q).build(),
          in -> new graphql.execution.preparsed.PreparsedDocumentEntry(List.of()));
    }
    assertThat(cache.size()).isEqualTo(2);
  }
}
