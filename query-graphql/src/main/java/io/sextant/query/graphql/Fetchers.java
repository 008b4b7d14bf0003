package io.sextant.query.graphql;

import graphql.GraphqlErrorBuilder;
import graphql.TrivialDataFetcher;
import graphql.execution.DataFetcherResult;
import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import io.sextant.api.id.EntityIds;
import io.sextant.core.query.QueryDuration;
import io.sextant.core.query.mqe.MqeException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Function;

/** Helpers shared by the wiring classes: argument parsing and turning bad input into clear errors. */
public final class Fetchers {
  private Fetchers() {}

  /**
   * Wraps a fetcher so that bad arguments become a GraphQL error with the reason, not a stack trace,
   * and a field reached after the request's {@link Deadline} does no work.
   */
  public static <T> DataFetcher<Object> safe(DataFetcher<T> fetcher) {
    return env -> {
      if (Deadline.passed(env)) {
        return error(env, Deadline.MESSAGE);
      }
      try {
        return fetcher.get(env);
      } catch (IllegalArgumentException | MqeException e) {
        return error(env, e.getMessage());
      }
    };
  }

  /**
   * Runs a root field on {@code executor} when the request asks for more than one root field, so
   * that their storage reads overlap (graphql-java waits for all of them together); a lone field
   * runs on the calling thread. Each request goes through its own {@link Lane}, half as wide as
   * the pool, so a request of hundreds of fields does not hold up the others: they find threads
   * free instead of waiting for one of its fields to finish. Errors complete the future, as a
   * synchronous fetcher would throw.
   */
  public static DataFetcher<Object> concurrent(Executor executor, DataFetcher<Object> fetcher) {
    int width = executor instanceof ThreadPoolExecutor pool ? Math.max(1, pool.getMaximumPoolSize() / 2) : 1;
    return env -> {
      if (env.getOperationDefinition().getSelectionSet().getSelections().size() < 2) {
        return fetcher.get(env);
      }
      Lane lane = env.getGraphQlContext().computeIfAbsent(Lane.class, k -> new Lane(executor, width));
      return CompletableFuture.supplyAsync(() -> {
        try {
          return fetcher.get(env);
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      }, lane);
    };
  }

  /**
   * A field read straight off its source object. Marked trivial, and a plain call instead of
   * graphql-java's reflective property lookup (a cache key string per fetch): topology answers
   * have thousands of such fields.
   */
  public static <S> DataFetcher<Object> field(Function<S, Object> getter) {
    return new SourceField<>(getter);
  }

  /** A {@link #field}; {@link FlatListExecutionStrategy} calls its getter directly. */
  record SourceField<S>(Function<S, Object> getter) implements TrivialDataFetcher<Object> {
    @Override
    public Object get(DataFetchingEnvironment env) {
      return getter.apply(env.getSource());
    }
  }

  /**
   * True for an absent or empty id. SkyWalking answers a lookup by an empty id with nothing (an
   * empty list or null), and the UI asks so whenever no entity is selected; only a non-empty
   * malformed id is an error.
   */
  public static boolean isEmpty(String id) {
    return id == null || id.isEmpty();
  }

  /** Whether a service id selects a service: false when empty, an error when malformed. */
  public static boolean selectsService(String id) {
    if (isEmpty(id)) {
      return false;
    }
    EntityIds.parseServiceId(id);
    return true;
  }

  /** As {@link #selectsService} for an instance or endpoint id. */
  public static boolean selectsChild(String id) {
    if (isEmpty(id)) {
      return false;
    }
    EntityIds.parseChildId(id);
    return true;
  }

  public static DataFetcherResult<Object> error(DataFetchingEnvironment env, String message) {
    return DataFetcherResult.newResult()
        .error(GraphqlErrorBuilder.newError(env).message(message).build())
        .build();
  }

  public static QueryDuration duration(DataFetchingEnvironment env, QueryLimits limits) {
    Map<String, Object> d = env.getArgument("duration");
    if (d == null) {
      throw new IllegalArgumentException("duration is required");
    }
    return QueryDuration.parse((String) d.get("start"), (String) d.get("end"), String.valueOf(d.get("step")),
        limits.maxDurationPoints());
  }
}
