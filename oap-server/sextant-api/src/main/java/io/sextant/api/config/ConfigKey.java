package io.sextant.api.config;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One configuration key: its YAML path, environment variable, default and how to parse and check a
 * value. {@code check} returns an error message, or null when the value is fine. {@code alias} is a
 * shorter environment variable operators and the Helm chart may use instead (null: none).
 *
 * <p>Each plugin declares its own keys beside its code; the server validates them all at start.
 */
public record ConfigKey(String path, Object defaultValue, Function<String, Object> parser,
    Function<Object, String> check, String description, String alias) {

  public ConfigKey(String path, Object defaultValue, Function<String, Object> parser,
      Function<Object, String> check, String description) {
    this(path, defaultValue, parser, check, description, null);
  }

  /** {@code SEXTANT_} + the path upper-snake-cased: {@code server.grpcPort} → {@code SEXTANT_SERVER_GRPC_PORT}. */
  public String envName() {
    return "SEXTANT_" + path.replace('.', '_').replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }

  /** The same key, also read from the environment variable {@code alias}. */
  public ConfigKey withAlias(String alias) {
    return new ConfigKey(path, defaultValue, parser, check, description, alias);
  }

  public static ConfigKey integer(String path, int def, int min, int max, String description) {
    return new ConfigKey(path, def, Integer::parseInt,
        v -> (Integer) v < min || (Integer) v > max ? "must be between " + min + " and " + max : null, description);
  }

  /** A text that must not be blank. */
  public static ConfigKey string(String path, String def, String description) {
    return new ConfigKey(path, def, s -> s, v -> ((String) v).isBlank() ? "must not be empty" : null, description);
  }

  /** A text that may be empty (credentials, optional rules). */
  public static ConfigKey optionalString(String path, String description) {
    return new ConfigKey(path, "", s -> s, v -> null, description);
  }

  public static ConfigKey oneOf(String path, String def, List<String> allowed, String description) {
    return new ConfigKey(path, def, s -> s, v -> allowed.contains(v) ? null : "must be one of " + allowed,
        description);
  }

  public static ConfigKey bool(String path, boolean def, String description) {
    return new ConfigKey(path, def, s -> switch (s) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("not a boolean");
    }, v -> null, description);
  }
}
