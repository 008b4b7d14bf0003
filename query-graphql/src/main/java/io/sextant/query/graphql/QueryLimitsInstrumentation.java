package io.sextant.query.graphql;

import graphql.ExecutionResult;
import graphql.analysis.MaxQueryComplexityInstrumentation;
import graphql.analysis.MaxQueryDepthInstrumentation;
import graphql.execution.instrumentation.InstrumentationContext;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.SimpleInstrumentationContext;
import graphql.execution.instrumentation.SimplePerformantInstrumentation;
import graphql.execution.instrumentation.parameters.InstrumentationCreateStateParameters;
import graphql.execution.instrumentation.parameters.InstrumentationExecuteOperationParameters;
import graphql.execution.instrumentation.parameters.InstrumentationValidationParameters;
import graphql.language.OperationDefinition;
import graphql.validation.ValidationError;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;

/**
 * The depth and complexity limits as one instrumentation. Both act once per operation; chained
 * with graphql-java's {@code ChainedInstrumentation} they cost a chain walk on every field fetch
 * as well, about a fifth of a large topology answer's execution.
 *
 * <p>Each check walks the whole operation: for a four-widget dashboard that walk was two-fifths of
 * the request's CPU and four-fifths of what it allocated. An operation found within both limits is
 * remembered (by identity: the {@link DocumentCache} answers the same document for the same text)
 * and not walked again. Only operations whose text has no directive are remembered: {@code @skip}
 * and {@code @include} take variables, so another request's variables may select more fields.
 */
final class QueryLimitsInstrumentation extends SimplePerformantInstrumentation {
  private final MaxQueryDepthInstrumentation depth;
  private final MaxQueryComplexityInstrumentation complexity;
  /** Weak keys: an operation is forgotten with its document once the cache lets that go. */
  private final Set<OperationDefinition> withinLimits = Collections.synchronizedSet(
      Collections.newSetFromMap(new WeakHashMap<>()));

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
    var context = parameters.getExecutionContext();
    OperationDefinition operation = context.getOperationDefinition();
    if (withinLimits.contains(operation)) {
      return SimpleInstrumentationContext.noOp();
    }
    depth.beginExecuteOperation(parameters, null);
    // A document from the DocumentCache skipped validation, where the complexity check keeps
    // the parameters it reports when the limit is passed.
    complexity.beginValidation(new InstrumentationValidationParameters(context.getExecutionInput(),
        context.getDocument(), context.getGraphQLSchema()), state);
    InstrumentationContext<ExecutionResult> checked = complexity.beginExecuteOperation(parameters, state);
    // Both checks throw past their limit, so here the operation is within both.
    if (context.getExecutionInput().getQuery().indexOf('@') < 0) {
      withinLimits.add(operation);
    }
    return checked;
  }
}
