package io.sextant.query.graphql;

import graphql.execution.DataFetcherResult;
import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import java.util.Collection;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletionStage;

/**
 * Every mutation field goes through one of these: a caller without the editor role is refused
 * before the field runs, and what runs is audited with who ran it, what it touched and how it
 * ended. Wrapping the fields, not the operation, covers every future write without a list to keep.
 */
final class GuardedWrite implements DataFetcher<Object> {
  /** Said to a caller that may not write: what would let it. */
  static final String REFUSAL = "%s is a write and needs the editor role; this request is from %s (%s)."
      + " Send an editor's credentials (users and tokens: auth.usersFile, auth.editorTokens), or allow anonymous"
      + " writes on a laptop with auth.anonymous=editor (SEXTANT_AUTH_ANONYMOUS=editor). See docs/security.md.";

  private static final int MAX_TARGET = 200;
  private final String operation;
  private final DataFetcher<?> delegate;
  private final WriteAudit audit;

  GuardedWrite(String operation, DataFetcher<?> delegate, WriteAudit audit) {
    this.operation = operation;
    this.delegate = delegate;
    this.audit = audit;
  }

  @Override
  public Object get(DataFetchingEnvironment env) throws Exception {
    Caller caller = env.getGraphQlContext().get(Caller.KEY);
    if (caller == null) {
      caller = Caller.anonymous(Caller.Role.VIEWER);
    }
    if (!caller.role().mayWrite()) {
      audit.refused(caller, operation, "role");
      return Fetchers.error(env, String.format(REFUSAL, operation, caller.name(),
          caller.role().name().toLowerCase(java.util.Locale.ROOT)));
    }
    String target = target(env.getArguments());
    Object result;
    try {
      result = delegate.get(env);
    } catch (Exception | Error e) {
      audit.ran(caller, operation, target, "error", String.valueOf(e.getMessage()));
      throw e;
    }
    Caller who = caller;
    if (result instanceof CompletionStage<?> later) {
      return later.whenComplete((r, e) -> report(who, target, r, e));
    }
    report(caller, target, result, null);
    return result;
  }

  private void report(Caller caller, String argumentIds, Object result, Throwable failure) {
    // addTemplate names its template only in its answer.
    String target = argumentIds.equals("-") && result instanceof Map<?, ?> answer && answer.get("id") != null
        ? "id=" + answer.get("id") : argumentIds;
    if (failure != null) {
      audit.ran(caller, operation, target, "error", String.valueOf(failure.getMessage()));
    } else if (result instanceof DataFetcherResult<?> r && r.hasErrors()) {
      audit.ran(caller, operation, target, "error", r.getErrors().get(0).getMessage());
    } else if (result instanceof Map<?, ?> answer && declined(answer)) {
      Object why = answer.get("errorReason") != null ? answer.get("errorReason") : answer.get("message");
      audit.ran(caller, operation, target, "declined", String.valueOf(why));
    } else {
      audit.ran(caller, operation, target, "done", "");
    }
  }

  /** The write's own answer says it did nothing ({@code status: false} or an {@code errorReason}). */
  private static boolean declined(Map<?, ?> answer) {
    return Boolean.FALSE.equals(answer.get("status")) || answer.get("errorReason") != null;
  }

  /** The ids among the arguments, one level into input objects: {@code id=..., serviceId=...}. */
  static String target(Map<String, Object> arguments) {
    StringJoiner ids = new StringJoiner(" ");
    collectIds(arguments, ids, 0);
    String text = ids.length() == 0 ? "-" : ids.toString();
    return text.length() > MAX_TARGET ? text.substring(0, MAX_TARGET) + "..." : text;
  }

  private static void collectIds(Map<?, ?> arguments, StringJoiner ids, int depth) {
    for (Map.Entry<?, ?> e : arguments.entrySet()) {
      String key = String.valueOf(e.getKey());
      Object value = e.getValue();
      if (value instanceof Map<?, ?> nested && depth < 1) {
        collectIds(nested, ids, depth + 1);
      } else if ((key.equals("id") || key.endsWith("Id") || key.endsWith("Ids")) && value != null) {
        ids.add(key + "=" + (value instanceof Collection<?> c ? String.join(",", c.stream().map(String::valueOf)
            .toList()) : value));
      }
    }
  }
}
