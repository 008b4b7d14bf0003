package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.ExecutionInput;
import graphql.ExecutionResult;
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
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzing GraphQL request handling (jqwik): any document, random text or strings of the schema's
 * own fields, arguments, fragments and directives, through the whole engine (document cache,
 * limits, our execution strategy, the query areas over an empty store) is answered with data or
 * errors, never an exception, within the limits. A longer run: {@code -Djqwik.tries.default=100000}.
 */
class GraphqlRequestProperties {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:30:00Z"), ZoneOffset.UTC);
  private static final QueryLimits LIMITS = new QueryLimits(15, 500, 10_080);
  private static final MemoryStorage STORAGE = new MemoryStorage(new MemoryStorageConfig(1000));
  private static final GraphQL ENGINE = SextantGraphql.build(SextantGraphql.standardAreas(
      QueryServices.over(STORAGE, MetricFamilies.catalog(100)), new AlarmQueries(() -> STORAGE), LIMITS,
      "test", () -> CheckResult.OK, ZoneOffset.UTC, CLOCK, Runnable::run), LIMITS, 50);

  @Property
  void anyDocumentIsAnsweredWithDataOrErrors(@ForAll("documents") String document) {
    ExecutionResult result = ENGINE.execute(ExecutionInput.newExecutionInput(document)
        .variables(Map.of("e", "service_cpm + 1", "n", 3)).build());
    Map<String, Object> answer = result.toSpecification();
    assertThat(answer.containsKey("data") || answer.containsKey("errors")).as(document).isTrue();
    // How far the documents get: refused before running, or executed (with or without field errors).
    Statistics.collect(answer.get("data") != null ? "executed" : "refused");
  }

  /**
   * Which operation to run is the request's to say: a document of several and no {@code
   * operationName} is answered with an error naming the problem, as is a name the document lacks.
   */
  @Example
  void severalOperationsWithoutAChoiceAreAnsweredWithAnError() {
    String two = "query first { version } query second { getTimeInfo { timezone } }";
    for (String name : new String[] {null, "third"}) {
      Map<String, Object> answer = ENGINE.execute(ExecutionInput.newExecutionInput(two).operationName(name).build())
          .toSpecification();
      assertThat(answer.get("data")).as(name).isNull();
      assertThat(String.valueOf(answer.get("errors"))).as(name).contains(name == null ? "operationName" : "third");
    }
    Map<String, Object> chosen = ENGINE.execute(ExecutionInput.newExecutionInput(two).operationName("second").build())
        .toSpecification();
    assertThat(chosen).doesNotContainKey("errors");
    assertThat(String.valueOf(chosen.get("data"))).contains("getTimeInfo").doesNotContain("version");
  }

  @Provide
  Arbitrary<String> documents() {
    Arbitrary<String> fields = field().list().ofMinSize(1).ofMaxSize(4).map(l -> {
      StringBuilder sb = new StringBuilder("{ ");
      for (int i = 0; i < l.size(); i++) {
        sb.append('f').append(i).append(": ").append(l.get(i)).append(' ');
      }
      return sb.append('}').toString();
    });
    // Valid-looking documents, the same with a character changed, and plain text.
    Arbitrary<String> changed = net.jqwik.api.Combinators.combine(fields, Arbitraries.integers().between(0, 1000),
        Arbitraries.chars().with("{}()[]:,$@!.\"#\\ ax0")).as((d, at, c) -> {
          StringBuilder sb = new StringBuilder(d);
          sb.setCharAt(at % sb.length(), c);
          return sb.toString();
        });
    return Arbitraries.oneOf(fields, fields, changed, Arbitraries.strings().ofMaxLength(200)).withoutEdgeCases();
  }

  private static Arbitrary<String> field() {
    Arbitrary<String> text = Arbitraries.oneOf(Arbitraries.of("\"\"", "\"a\"", "\"MESH\"", "\"YQ==.1\"",
        "\"YQ==.1_Lw==\"", "\"no such\"", "\"\\u0000\"", "null"), Arbitraries.strings().alpha().numeric()
        .ofMaxLength(12).map(t -> "\"" + t + "\""));
    Arbitrary<String> mqe = Arbitraries.of("service_cpm", "service_sla / 100", "top_n(service_cpm, 5, des)",
        "avg(service_resp_time)", "service_percentile{p='50,99'}", "relabels(service_cpm, a='b', c='d')",
        "round(service_cpm, 999999999)", "service_cpm > 1 && service_sla < 100", "sort_values(service_cpm, 3, asc)",
        "aggregate_labels(service_percentile{p='50'}, sum)", "no_such_metric", "1 / 0", "(", "").map(e -> "\"" + e
        + "\"");
    Arbitrary<String> entity = Arbitraries.of("{serviceName: \"a\", normal: true}", "{}",
        "{scope: Endpoint, serviceName: \"a\", normal: true, endpointName: \"GET:/\"}",
        "{scope: ServiceRelation, serviceName: \"a\", normal: true, destServiceName: \"b\", destNormal: true}",
        "{scope: All}", "{serviceName: \"\", normal: false}");
    Arbitrary<String> duration = Arbitraries.of("{start: \"2026-11-22 1000\", end: \"2026-11-22 1030\", step: MINUTE}",
        "{start: \"2026-11-22 10\", end: \"2026-11-23 10\", step: HOUR}",
        "{start: \"2026-11-01\", end: \"2026-11-22\", step: DAY}",
        "{start: \"2016-01-01 0000\", end: \"2026-11-22 1030\", step: MINUTE}",
        "{start: \"2026-11-22 1030\", end: \"2026-11-22 1000\", step: MINUTE}",
        "{start: \"garbage\", end: \"\", step: SECOND}", "{start: \"2026-11-22 1000\", step: MINUTE}");
    Arbitrary<Integer> limit = Arbitraries.of(-1, 0, 1, 20, Integer.MAX_VALUE);
    return Arbitraries.oneOf(
        net.jqwik.api.Combinators.combine(mqe, entity, duration).as((e, en, d) -> "execExpression(expression: " + e
            + ", entity: " + en + ", duration: " + d + ") { type error results { metric { labels { key value } }"
            + " values { id value } } }"),
        net.jqwik.api.Combinators.combine(duration, text).as((d, l) -> "getGlobalTopology(duration: " + d
            + ", layer: " + l + ") { nodes { id name type isReal layers } calls { id source target detectPoints } }"),
        text.map(l -> "listServices(layer: " + l + ") { id name group layers normal }"),
        net.jqwik.api.Combinators.combine(duration, text).as((d, id) -> "getServiceInstances(duration: " + d
            + ", serviceId: " + id + ") { id name attributes { name value } }"),
        net.jqwik.api.Combinators.combine(text, text, limit).as((k, id, n) -> "findEndpoint(keyword: " + k
            + ", serviceId: " + id + ", limit: " + n + ") { id name }"),
        Arbitraries.of("getTimeInfo { timezone currentTimestamp }", "listLayers", "__typename",
            "__schema { queryType { name } }"));
  }
}
