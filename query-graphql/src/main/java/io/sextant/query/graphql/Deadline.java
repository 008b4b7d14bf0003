package io.sextant.query.graphql;

import graphql.schema.DataFetchingEnvironment;

/**
 * How long one request may compute. The HTTP service puts the instant ({@link System#nanoTime()})
 * in the request's GraphQL context under {@link #KEY}; a root field reached after it answers an
 * error instead of reading storage, so a request of thousands of expensive fields stops working
 * when its answer is due, not only stops being waited for. A field already running finishes (each
 * is bounded: expression size, points per duration).
 */
public final class Deadline {
  public static final String KEY = "sextant.deadlineNanos";
  static final String MESSAGE = "not computed: the request passed its deadline (server.requestTimeoutSeconds);"
      + " ask for fewer or smaller fields at once";

  private Deadline() {}

  static boolean passed(DataFetchingEnvironment env) {
    Object at = env.getGraphQlContext().get(KEY);
    return at instanceof Long nanos && System.nanoTime() - nanos > 0;
  }
}
