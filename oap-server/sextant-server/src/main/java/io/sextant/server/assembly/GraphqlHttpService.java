package io.sextant.server.assembly;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.query.graphql.Caller;
import io.sextant.query.graphql.Deadline;
import io.sextant.server.security.HttpAuthentication;
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

  private final HttpAuthentication authentication;

  GraphqlHttpService(GraphQL graphql, Duration computeFor, MeterRegistry registry,
      HttpAuthentication authentication) {
    this.graphql = graphql;
    this.authentication = authentication;
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
    // Off the event loop too: a first bcrypt check takes tens of milliseconds.
    return HttpResponse.of(req.aggregate().thenApplyAsync(this::execute, ctx.blockingTaskExecutor()));
  }

  private HttpResponse execute(AggregatedHttpRequest req) {
    HttpAuthentication.Outcome who = authentication.authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (who.caller() == null) {
      return unauthorized(who.message());
    }
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
      ExecutionResult result = graphql.execute(input(body, started + computeNanos, who.caller()));
      outcome = result.getErrors().isEmpty() ? answered : failed;
      return json(HttpStatus.OK, result.toSpecification());
    } finally {
      outcome.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }

  @SuppressWarnings("unchecked")
  private static ExecutionInput input(JsonNode body, long deadlineNanos, Caller caller) {
    Map<String, Object> variables = body.hasNonNull("variables")
        ? JSON.convertValue(body.get("variables"), Map.class) : Map.of();
    return ExecutionInput.newExecutionInput()
        .query(body.get("query").asText())
        .operationName(body.hasNonNull("operationName") ? body.get("operationName").asText() : null)
        .variables(variables)
        .graphQLContext(Map.of(Deadline.KEY, deadlineNanos, Caller.KEY, caller))
        .build();
  }

  private static HttpResponse error(HttpStatus status, String message) {
    return json(status, errors(message));
  }

  private static Map<String, Object> errors(String message) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("errors", List.of(Map.of("message", message)));
    return out;
  }

  /** 401 with the challenges a client may answer, and the reason as a GraphQL error. */
  private static HttpResponse unauthorized(String message) {
    try {
      ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.UNAUTHORIZED).contentType(MediaType.JSON_UTF_8)
          .add(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"sextant\", charset=\"UTF-8\"")
          .add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"sextant\"").build();
      return HttpResponse.of(headers, HttpData.wrap(JSON.writeValueAsBytes(errors(message))));
    } catch (Exception e) {
      return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8, message);
    }
  }

  private static HttpResponse json(HttpStatus status, Map<String, Object> body) {
    try {
      return HttpResponse.of(status, MediaType.JSON_UTF_8, JSON.writeValueAsBytes(body));
    } catch (Exception e) {
      return HttpResponse.of(HttpStatus.INTERNAL_SERVER_ERROR, MediaType.PLAIN_TEXT_UTF_8, e.toString());
    }
  }
}
