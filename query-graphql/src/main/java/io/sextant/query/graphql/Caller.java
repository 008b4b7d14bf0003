package io.sextant.query.graphql;

/**
 * Who sent a GraphQL request and what they may do, as the HTTP layer established it from the
 * request's credentials. The engine reads it from the request's GraphQL context under {@link #KEY};
 * a request without one may only read.
 */
public record Caller(String name, Role role) {
  public static final String KEY = "sextant.caller";

  /** A caller that presented no credentials, with the role the configuration grants such callers. */
  public static Caller anonymous(Role role) {
    return new Caller("anonymous", role);
  }

  /** What a caller may do: viewers query; editors also run mutations (every write). */
  public enum Role {
    VIEWER, EDITOR;

    public boolean mayWrite() {
      return this == EDITOR;
    }
  }
}
