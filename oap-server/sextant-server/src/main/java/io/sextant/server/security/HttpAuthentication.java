package io.sextant.server.security;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.query.graphql.Caller;
import io.sextant.query.graphql.Caller.Role;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns a request's {@code Authorization} header into a {@link Caller}: {@code Basic} as swctl's
 * {@code --username/--password} sends it, {@code Bearer} (or a raw token, as swctl's
 * {@code --authorization} may send it) for tokens, nothing for anonymous callers, who get the
 * configured anonymous role. Wrong credentials are refused, never downgraded to anonymous.
 *
 * <p>bcrypt costs tens of milliseconds by design, and the UI's proxy sends the same header with
 * every request: a verified pair is remembered (as a digest) in a small bounded cache, emptied
 * whenever the users change.
 */
public final class HttpAuthentication {
  private static final int MAX_REMEMBERED = 1024;
  /**
   * A token caller's name: {@code token:} and the token's name in the users file (or the setting it
   * came from, e.g. {@code token:auth.editorTokens}), apart from users' names.
   */
  static final String TOKEN_PREFIX = "token:";
  /** Checked against for unknown users, so that they take as long as known ones. */
  private static final byte[] DUMMY_HASH = BCrypt.withDefaults().hash(10, new byte[16], new byte[] {'x'});

  private final Supplier<HttpUsers> users;
  private final String anonymousSetting;
  /** A users file is configured: {@code auto} then refuses anonymous callers even if the file is emptied. */
  private final boolean usersConfigured;
  private final MeterRegistry registry;
  private final Map<String, Caller> remembered = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Caller> eldest) {
      return size() > MAX_REMEMBERED;
    }
  };
  private HttpUsers rememberedFor;

  HttpAuthentication(Supplier<HttpUsers> users, String anonymousSetting, boolean usersConfigured,
      MeterRegistry registry) {
    this.users = users;
    this.anonymousSetting = anonymousSetting;
    this.usersConfigured = usersConfigured;
    this.registry = registry;
  }

  /** Who is calling, or a refusal: a 401 with the reason. */
  public Outcome authenticate(String authorization) {
    HttpUsers now = users.get();
    if (authorization == null || authorization.isBlank()) {
      Role anonymous = anonymousRole(now);
      return anonymous == null ? refuse("missing_credentials", "this Sextant asks for credentials: a user"
          + " (Authorization: Basic) or a token (Authorization: Bearer)") : new Outcome(Caller.anonymous(anonymous),
          null, null);
    }
    Authorization header = Authorization.parse(authorization);
    if (header.scheme().equalsIgnoreCase("Basic")) {
      return basic(now, header.credentials());
    }
    String token = header.bearerToken();
    if (token != null) {
      // Both sets are looked through, so that the time taken does not tell an editor's token from a viewer's.
      String editor = now.editorTokens().match(token);
      String viewer = now.viewerTokens().match(token);
      if (editor != null) {
        return new Outcome(new Caller(TOKEN_PREFIX + editor, Role.EDITOR), null, null);
      }
      if (viewer != null) {
        return new Outcome(new Caller(TOKEN_PREFIX + viewer, Role.VIEWER), null, null);
      }
      return refuse("wrong_token", "the bearer token is not one this Sextant accepts");
    }
    return refuse("unsupported_scheme", "Authorization must be Basic or Bearer");
  }

  /**
   * The anonymous role: {@code auto} reads when nobody is configured and asks for credentials
   * otherwise; null: refused.
   */
  Role anonymousRole(HttpUsers now) {
    return switch (anonymousSetting) {
      case "editor" -> Role.EDITOR;
      case "viewer" -> Role.VIEWER;
      case "none" -> null;
      default -> now.isEmpty() && !usersConfigured ? Role.VIEWER : null;
    };
  }

  private Outcome basic(HttpUsers now, String credentials) {
    String pair;
    try {
      pair = new String(Base64.getDecoder().decode(credentials), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return refuse("malformed", "Authorization: Basic needs base64 of user:password");
    }
    int colon = pair.indexOf(':');
    if (colon < 0) {
      return refuse("malformed", "Authorization: Basic needs base64 of user:password");
    }
    String key = HexFormat.of().formatHex(Tokens.sha256(pair));
    Caller known = recall(now, key);
    if (known != null) {
      return new Outcome(known, null, null);
    }
    HttpUsers.User user = now.users().get(pair.substring(0, colon));
    byte[] password = pair.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
    boolean verified = BCrypt.verifyer().verify(password, user == null ? DUMMY_HASH : user.passwordHash()).verified;
    if (user == null || !verified) {
      return refuse("wrong_password", "unknown user or wrong password");
    }
    Caller caller = new Caller(user.name(), user.role());
    remember(now, key, caller);
    return new Outcome(caller, null, null);
  }

  private synchronized Caller recall(HttpUsers now, String key) {
    if (rememberedFor != now) {
      remembered.clear();
      rememberedFor = now;
    }
    return remembered.get(key);
  }

  private synchronized void remember(HttpUsers now, String key, Caller caller) {
    if (rememberedFor == now) {
      remembered.put(key, caller);
    }
  }

  private Outcome refuse(String reason, String message) {
    registry.counter("sextant_http_unauthenticated", "reason", reason).increment();
    return new Outcome(null, reason, message);
  }

  /**
   * An {@code Authorization} value split into its scheme (empty for a bare value, as swctl's
   * {@code --authorization} may send one) and its credentials.
   */
  record Authorization(String scheme, String credentials) {
    static Authorization parse(String authorization) {
      String value = authorization.strip();
      int space = value.indexOf(' ');
      return space < 0 ? new Authorization("", value)
          : new Authorization(value.substring(0, space), value.substring(space + 1).strip());
    }

    /** The token of a {@code Bearer} or bare value; null for any other scheme. */
    String bearerToken() {
      return scheme.isEmpty() || scheme.equalsIgnoreCase("Bearer") ? credentials : null;
    }
  }

  /** A caller, or the reason and message of a refusal. */
  public record Outcome(Caller caller, String reason, String message) {}
}
