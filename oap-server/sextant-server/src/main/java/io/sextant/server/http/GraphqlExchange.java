package io.sextant.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import graphql.ExecutionInput;
import graphql.ExecutionResult;
import graphql.GraphQL;
import io.sextant.query.graphql.Caller;
import io.sextant.query.graphql.Deadline;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One GraphQL request from its JSON body ({@code {query, variables, operationName}}) to the JSON
 * bytes of its answer ({@code {data, errors}}): what {@link GraphqlHttpService} does between
 * reading a body and sending an answer. The query warm-up goes through here too, so that it
 * compiles what clients' requests take (Jackson reading the body, the variables as the maps it
 * makes, the answer written out), not only the engine.
 */
public final class GraphqlExchange {
  public static final ObjectMapper JSON = new ObjectMapper();
  private final GraphQL graphql;

  public GraphqlExchange(GraphQL graphql) {
    this.graphql = graphql;
  }

  /** An answer: its HTTP status, body and type; {@code withErrors} when the body carries GraphQL errors. */
  public record Answer(HttpStatus status, MediaType type, byte[] body, boolean withErrors) {}

  /** Answers a request body; {@code deadlineNanos} bounds its computation ({@link Deadline}). */
  public Answer answer(String body, long deadlineNanos, Caller caller) {
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (Exception e) {
      return refused("request body is not valid JSON: " + e.getMessage());
    }
    if (request == null || !request.hasNonNull("query") || !request.get("query").isTextual()) {
      return refused("request body needs a string field 'query'");
    }
    ExecutionResult result = graphql.execute(input(request, deadlineNanos, caller));
    return json(HttpStatus.OK, result.toSpecification(), !result.getErrors().isEmpty());
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

  /** {@code {"errors": [{"message": ...}]}}: a request refused before execution. */
  static Map<String, Object> errors(String message) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("errors", List.of(Map.of("message", message)));
    return out;
  }

  private static Answer refused(String message) {
    return json(HttpStatus.BAD_REQUEST, errors(message), true);
  }

  private static Answer json(HttpStatus status, Map<String, Object> body, boolean withErrors) {
    try {
      return new Answer(status, MediaType.JSON_UTF_8, JSON.writeValueAsBytes(body), withErrors);
    } catch (Exception e) {
      return new Answer(HttpStatus.INTERNAL_SERVER_ERROR, MediaType.PLAIN_TEXT_UTF_8,
          e.toString().getBytes(StandardCharsets.UTF_8), true);
    }
  }
}
