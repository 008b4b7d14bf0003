package io.sextant.query.graphql;

import graphql.ErrorType;
import graphql.ExecutionInput;
import graphql.GraphqlErrorBuilder;
import graphql.execution.preparsed.PreparsedDocumentEntry;
import graphql.execution.preparsed.PreparsedDocumentProvider;
import graphql.language.OperationDefinition;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Answers a request whose document does not say which operation to run (several operations and no
 * {@code operationName}, or a name the document lacks) with a GraphQL error naming the problem.
 * graphql-java throws there ({@code UnknownOperationException}) past its own error handling, which
 * would end the request as an HTTP 500. Wraps the document cache, or parses itself when there is none.
 */
final class ChosenOperation implements PreparsedDocumentProvider {
  private final PreparsedDocumentProvider documents;

  ChosenOperation(PreparsedDocumentProvider documents) {
    this.documents = documents;
  }

  @Override
  public CompletableFuture<PreparsedDocumentEntry> getDocumentAsync(ExecutionInput input,
      Function<ExecutionInput, PreparsedDocumentEntry> parseAndValidate) {
    CompletableFuture<PreparsedDocumentEntry> entry = documents == null
        ? CompletableFuture.completedFuture(parseAndValidate.apply(input))
        : documents.getDocumentAsync(input, parseAndValidate);
    return entry.thenApply(e -> e.hasErrors() ? e : choose(e, input.getOperationName()));
  }

  private static PreparsedDocumentEntry choose(PreparsedDocumentEntry entry, String name) {
    List<OperationDefinition> operations = entry.getDocument().getDefinitionsOfType(OperationDefinition.class);
    boolean named = name != null && !name.isEmpty();
    if (named ? operations.stream().anyMatch(o -> name.equals(o.getName())) : operations.size() == 1) {
      return entry;
    }
    List<String> names = operations.stream().map(o -> Objects.requireNonNullElse(o.getName(), "(unnamed)")).toList();
    String message = named
        ? "the document has no operation named '" + name + "'; it has " + String.join(", ", names)
        : "the document has " + operations.size() + " operations (" + String.join(", ", names)
            + "): say which to run with the request's operationName";
    return new PreparsedDocumentEntry(GraphqlErrorBuilder.newError().message(message)
        .errorType(ErrorType.ValidationError).build());
  }
}
