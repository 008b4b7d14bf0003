package io.sextant.server.config;

import java.util.function.Function;

/**
 * One configuration key: its YAML path, environment variable, default and how to parse and check a
 * value. {@code check} returns an error message, or null when the value is fine.
 */
public record ConfigKey(String path, Object defaultValue, Function<String, Object> parser,
    Function<Object, String> check, String description) {

  /** {@code SEXTANT_} + the path upper-snake-cased: {@code server.grpcPort} → {@code SEXTANT_SERVER_GRPC_PORT}. */
  public String envName() {
    return "SEXTANT_" + path.replace('.', '_').replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
  }

  static ConfigKey integer(String path, int def, int min, int max, String description) {
    return new ConfigKey(path, def, Integer::parseInt,
        v -> (Integer) v < min || (Integer) v > max ? "must be between " + min + " and " + max : null, description);
  }

  static ConfigKey string(String path, String def, String description) {
    return new ConfigKey(path, def, s -> s, v -> ((String) v).isBlank() ? "must not be empty" : null, description);
  }

  static ConfigKey oneOf(String path, String def, java.util.List<String> allowed, String description) {
    return new ConfigKey(path, def, s -> s, v -> allowed.contains(v) ? null : "must be one of " + allowed,
        description);
  }

  static ConfigKey bool(String path, boolean def, String description) {
    return new ConfigKey(path, def, s -> switch (s) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("not a boolean");
    }, v -> null, description);
  }
}
