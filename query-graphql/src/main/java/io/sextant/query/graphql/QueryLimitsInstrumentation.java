package io.sextant.query.graphql;

import graphql.ExecutionResult;
import graphql.analysis.MaxQueryComplexityInstrumentation;
import graphql.analysis.MaxQueryDepthInstrumentation;
import graphql.execution.instrumentation.InstrumentationContext;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.SimplePerformantInstrumentation;
import graphql.execution.instrumentation.parameters.InstrumentationCreateStateParameters;
import graphql.execution.instrumentation.parameters.InstrumentationExecuteOperationParameters;
import graphql.execution.instrumentation.parameters.InstrumentationValidationParameters;
import graphql.validation.ValidationError;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The depth and complexity limits as one instrumentation. Both act once per operation; chained
 * with graphql-java's {@code ChainedInstrumentation} they cost a chain walk on every field fetch
 * as well, about a fifth of a large topology answer's execution.
 */
final class QueryLimitsInstrumentation extends SimplePerformantInstrumentation {
  private final MaxQueryDepthInstrumentation depth;
  private final MaxQueryComplexityInstrumentation complexity;

  QueryLimitsInstrumentation(QueryLimits limits) {
    this.depth = new MaxQueryDepthInstrumentation(limits.maxDepth());
    this.complexity = new MaxQueryComplexityInstrumentation(limits.maxComplexity());
  }

  /** The complexity check's state (the depth check keeps none). */
  @Override
  public CompletableFuture<InstrumentationState> createStateAsync(InstrumentationCreateStateParameters parameters) {
    return complexity.createStateAsync(parameters);
  }

  @Override
  public InstrumentationContext<List<ValidationError>> beginValidation(
      InstrumentationValidationParameters parameters, InstrumentationState state) {
    return complexity.beginValidation(parameters, state);
  }

  @Override
  public InstrumentationContext<ExecutionResult> beginExecuteOperation(
      InstrumentationExecuteOperationParameters parameters, InstrumentationState state) {
    depth.beginExecuteOperation(parameters, null);
    // A document from the DocumentCache skipped validation, where the complexity check keeps
    // the parameters it reports when the limit is passed.
    var context = parameters.getExecutionContext();
    complexity.beginValidation(new InstrumentationValidationParameters(context.getExecutionInput(),
        context.getDocument(), context.getGraphQLSchema()), state);
    return complexity.beginExecuteOperation(parameters, state);
  }
}
