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
import graphql.GraphQL;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GraphQL over HTTP as SkyWalking's clients speak it: {@code POST} a JSON body {@code {query,
 * variables, operationName}}, answer {@code {data, errors}}. Execution runs off the event loop.
 */
final class GraphqlHttpService implements HttpService {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final GraphQL graphql;

  GraphqlHttpService(GraphQL graphql) {
    this.graphql = graphql;
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    if (req.method() != HttpMethod.POST) {
      return HttpResponse.of(HttpStatus.METHOD_NOT_ALLOWED, MediaType.PLAIN_TEXT_UTF_8,
          "POST a JSON body {\"query\": ..., \"variables\": {...}}");
    }
    return HttpResponse.of(req.aggregate().thenApplyAsync(this::execute, ctx.blockingTaskExecutor()));
  }

  @SuppressWarnings("unchecked")
  private HttpResponse execute(AggregatedHttpRequest req) {
    JsonNode body;
    try {
      body = JSON.readTree(req.contentUtf8());
    } catch (Exception e) {
      return error(HttpStatus.BAD_REQUEST, "request body is not valid JSON: " + e.getMessage());
    }
    if (body == null || !body.hasNonNull("query") || !body.get("query").isTextual()) {
      return error(HttpStatus.BAD_REQUEST, "request body needs a string field 'query'");
    }
    Map<String, Object> variables = body.hasNonNull("variables")
        ? JSON.convertValue(body.get("variables"), Map.class) : Map.of();
    ExecutionInput input = ExecutionInput.newExecutionInput()
        .query(body.get("query").asText())
        .operationName(body.hasNonNull("operationName") ? body.get("operationName").asText() : null)
        .variables(variables)
        .build();
    Map<String, Object> result = graphql.execute(input).toSpecification();
    return json(HttpStatus.OK, result);
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
