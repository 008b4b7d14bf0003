package io.sextant.server.assembly;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.query.graphql.Deadline;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * GraphQL over HTTP as SkyWalking's clients speak it: {@code POST} a JSON body {@code {query,
 * variables, operationName}}, answer {@code {data, errors}}. Execution runs off the event loop.
 */
final class GraphqlHttpService implements HttpService {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final GraphQL graphql;
  private final Timer answered;
  private final Timer failed;
  private final Timer refused;

  /** How long a request may compute: {@link Deadline}. */
  private final long computeNanos;

  GraphqlHttpService(GraphQL graphql, Duration computeFor, MeterRegistry registry) {
    this.graphql = graphql;
    this.computeNanos = computeFor.toNanos();
    this.answered = timer(registry, "ok");
    this.failed = timer(registry, "error");
    this.refused = timer(registry, "bad_request");
  }

  /** Server-side time of one request, from its body to the serialized answer. */
  private static Timer timer(MeterRegistry registry, String outcome) {
    return Timer.builder("sextant_graphql_request_duration").tag("outcome", outcome)
        .description("one GraphQL request: ok, error (the answer carries GraphQL errors) or bad_request")
        .publishPercentiles(0.5, 0.95, 0.99).publishPercentileHistogram().register(registry);
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    if (req.method() != HttpMethod.POST) {
      return HttpResponse.of(HttpStatus.METHOD_NOT_ALLOWED, MediaType.PLAIN_TEXT_UTF_8,
          "POST a JSON body {\"query\": ..., \"variables\": {...}}");
    }
    return HttpResponse.of(req.aggregate().thenApplyAsync(this::execute, ctx.blockingTaskExecutor()));
  }

  private HttpResponse execute(AggregatedHttpRequest req) {
    long started = System.nanoTime();
    Timer outcome = refused;
    try {
      JsonNode body;
      try {
        body = JSON.readTree(req.contentUtf8());
      } catch (Exception e) {
        return error(HttpStatus.BAD_REQUEST, "request body is not valid JSON: " + e.getMessage());
      }
      if (body == null || !body.hasNonNull("query") || !body.get("query").isTextual()) {
        return error(HttpStatus.BAD_REQUEST, "request body needs a string field 'query'");
      }
      ExecutionResult result = graphql.execute(input(body, started + computeNanos));
      outcome = result.getErrors().isEmpty() ? answered : failed;
      return json(HttpStatus.OK, result.toSpecification());
    } finally {
      outcome.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }

  @SuppressWarnings("unchecked")
  private static ExecutionInput input(JsonNode body, long deadlineNanos) {
    Map<String, Object> variables = body.hasNonNull("variables")
        ? JSON.convertValue(body.get("variables"), Map.class) : Map.of();
    return ExecutionInput.newExecutionInput()
        .query(body.get("query").asText())
        .operationName(body.hasNonNull("operationName") ? body.get("operationName").asText() : null)
        .variables(variables)
        .graphQLContext(Map.of(Deadline.KEY, deadlineNanos))
        .build();
  }

  private static HttpResponse error(HttpStatus status, String message) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("errors", List.of(Map.of("message", message)));
    return json(status, out);
  }

  private static HttpResponse json(HttpStatus status, Map<String, Object> body) {
    try {
      return HttpResponse.of(status, MediaType.JSON_UTF_8, JSON.writeValueAsBytes(body));
    } catch (Exception e) {
      return HttpResponse.of(HttpStatus.INTERNAL_SERVER_ERROR, MediaType.PLAIN_TEXT_UTF_8, e.toString());
    }
  }
}
