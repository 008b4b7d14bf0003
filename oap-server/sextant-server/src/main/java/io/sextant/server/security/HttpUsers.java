package io.sextant.server.security;

import io.sextant.query.graphql.Caller.Role;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Who may call the HTTP port, at one moment: basic users with bcrypt password hashes and bearer
 * tokens kept as SHA-256 digests, each with a role. Read from the users file:
 *
 * <pre>
 * users:
 *   - {name: alice, role: editor, password: "$2y$10$..."}   # printf %s '...' | bin/sextant hash-password
 * tokens:
 *   - {name: grafana, role: viewer, sha256: "9f86d08..."}   # printf %s '...' | sha256sum
 * </pre>
 *
 * and from the settings {@code auth.editorTokens} and {@code auth.viewerTokens} (a Secret's values
 * in the environment).
 */
record HttpUsers(Map<String, User> users, Tokens editorTokens, Tokens viewerTokens) {
  static final HttpUsers NONE = new HttpUsers(Map.of(), Tokens.NONE, Tokens.NONE);

  record User(String name, Role role, byte[] passwordHash) {}

  boolean isEmpty() {
    return users.isEmpty() && editorTokens.isEmpty() && viewerTokens.isEmpty();
  }

  /** These users plus the tokens given in settings. */
  HttpUsers withTokens(Tokens editors, Tokens viewers) {
    return new HttpUsers(users, editorTokens.and(editors), viewerTokens.and(viewers));
  }

  /** Parses a users file; the message of the exception names the entry at fault. */
  @SuppressWarnings("unchecked")
  static HttpUsers parse(byte[] yaml, String source) {
    Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(new String(yaml, StandardCharsets.UTF_8));
    if (root == null) {
      return NONE;
    }
    if (!(root instanceof Map<?, ?> top)) {
      throw new IllegalArgumentException(source + ": expected 'users:' and 'tokens:' lists");
    }
    Map<String, User> users = new HashMap<>();
    for (Map<String, Object> u : entries(top.get("users"), source, "users")) {
      String name = field(u, "name", source);
      String hash = field(u, "password", source);
      if (!hash.matches("\\$2[abxy]?\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
        throw new IllegalArgumentException(source + ": user " + name + ": password must be a bcrypt hash ($2y$...)");
      }
      users.put(name, new User(name, role(u, source), hash.getBytes(StandardCharsets.UTF_8)));
    }
    List<Tokens.Named> editors = new ArrayList<>();
    List<Tokens.Named> viewers = new ArrayList<>();
    List<Map<String, Object>> tokens = entries(top.get("tokens"), source, "tokens");
    for (int i = 0; i < tokens.size(); i++) {
      Map<String, Object> t = tokens.get(i);
      String digest = field(t, "sha256", source);
      if (!digest.matches("[0-9a-fA-F]{64}")) {
        throw new IllegalArgumentException(source + ": token " + t.get("name") + ": sha256 must be 64 hex digits");
      }
      // The audit log names the token a write came with; an entry without a name by its place.
      Object given = t.get("name");
      String name = given == null || String.valueOf(given).isBlank() ? "tokens[" + (i + 1) + "]"
          : String.valueOf(given);
      (role(t, source) == Role.EDITOR ? editors : viewers).add(Tokens.Named.ofHex(name, digest));
    }
    return new HttpUsers(Map.copyOf(users), Tokens.of(editors), Tokens.of(viewers));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> entries(Object list, String source, String what) {
    if (list == null) {
      return List.of();
    }
    if (!(list instanceof List<?> items) || !items.stream().allMatch(i -> i instanceof Map)) {
      throw new IllegalArgumentException(source + ": '" + what + "' must be a list of entries");
    }
    return (List<Map<String, Object>>) list;
  }

  private static String field(Map<String, Object> entry, String key, String source) {
    Object v = entry.get(key);
    if (v == null || String.valueOf(v).isBlank()) {
      throw new IllegalArgumentException(source + ": an entry lacks '" + key + "' (" + entry.get("name") + ")");
    }
    return String.valueOf(v);
  }

  private static Role role(Map<String, Object> entry, String source) {
    String role = String.valueOf(entry.getOrDefault("role", "viewer")).toLowerCase(Locale.ROOT);
    return switch (role) {
      case "viewer" -> Role.VIEWER;
      case "editor" -> Role.EDITOR;
      default -> throw new IllegalArgumentException(source + ": " + entry.get("name") + ": role must be viewer or"
          + " editor, not " + role);
    };
  }
}
