package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The GraphQL depth and complexity limits refuse a request with the reason, over HTTP; every
 * request's server-side latency is counted by outcome.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryLimitsIT {
  private static final String DURATION = "{start: \"2026-01-01 1000\", end: \"2026-01-01 1010\", step: MINUTE}";
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of("query.maxDepth", "2",
      "query.maxComplexity", "20"));

  private static TestServer sextant() {
    return SEXTANT.server();
  }

  @Test
  void aSelectionDeeperThanTheLimitIsRefused() throws Exception {
    JsonNode r = sextant().graphql("{ getGlobalTopology(duration: " + DURATION + ") { nodes { id } } }");
    assertThat(r.get("errors").get(0).get("message").asText()).contains("maximum query depth exceeded 3 > 2");
    assertThat(r.path("data").path("getGlobalTopology").isMissingNode() || r.get("data").isNull()).isTrue();
  }

  @Test
  void moreFieldsThanTheComplexityLimitAreRefused() throws Exception {
    String fields = IntStream.range(0, 21).mapToObj(i -> "v" + i + ": version").collect(Collectors.joining(" "));
    JsonNode r = sextant().graphql("{ " + fields + " }");
    assertThat(r.get("errors").get(0).get("message").asText()).contains("maximum query complexity exceeded 21 > 20");
  }

  @Test
  void requestsWithinTheLimitsAreAnswered() throws Exception {
    String fields = IntStream.range(0, 20).mapToObj(i -> "v" + i + ": version").collect(Collectors.joining(" "));
    assertThat(sextant().data("{ " + fields + " }").get("v19").asText()).startsWith("10.1.0");
    assertThat(sextant().data("{ checkHealth { score } }").get("checkHealth").get("score").asInt()).isZero();
  }

  @Test
  void aDocumentOfTwoOperationsWithoutOperationNameIsAnsweredWithAnErrorNotA500() throws Exception {
    HttpResponse<String> r = TestServer.HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + sextant().httpPort + "/graphql"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"query a { version } query b { version }\"}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("the document has 2 operations (a, b)").contains("operationName");
  }

  @Test
  void requestLatencyIsCountedByOutcome() throws Exception {
    Map<String, Double> before = requestCounts();
    sextant().data("{ version }");
    sextant().graphql("{ getGlobalTopology(duration: " + DURATION + ") { nodes { id } } }");
    HttpResponse<String> bad = TestServer.HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + sextant().httpPort + "/graphql")).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{not json")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("request body is not valid JSON");
    Map<String, Double> after = requestCounts();
    for (String outcome : List.of("ok", "error", "bad_request")) {
      assertThat(after.get(outcome) - before.getOrDefault(outcome, 0.0)).as(outcome).isEqualTo(1.0);
    }
  }

  /** {@code sextant_graphql_request_duration_seconds_count} by outcome, from /metrics. */
  private Map<String, Double> requestCounts() throws Exception {
    Map<String, Double> counts = new HashMap<>();
    Matcher m = Pattern.compile("sextant_graphql_request_duration_seconds_count\\{outcome=\"(\\w+)\",?\\} (\\S+)")
        .matcher(sextant().get("/metrics"));
    while (m.find()) {
      counts.put(m.group(1), Double.parseDouble(m.group(2)));
    }
    return counts;
  }
}
