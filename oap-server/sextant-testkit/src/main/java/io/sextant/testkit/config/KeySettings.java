package io.sextant.testkit.config;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Settings} for a plugin's tests: each key's default, or a text override parsed and checked
 * the way the server does, so a test cannot pass a value start-up would refuse.
 */
public final class KeySettings implements Settings {
  private final Map<String, Object> values = new HashMap<>();

  private KeySettings(List<ConfigKey> keys, Map<String, String> overrides) {
    Map<String, String> unused = new HashMap<>(overrides);
    for (ConfigKey key : keys) {
      String raw = unused.remove(key.path());
      Object value = raw == null ? key.defaultValue() : key.parser().apply(raw);
      String problem = key.check().apply(value);
      if (problem != null) {
        throw new IllegalArgumentException(key.path() + ": " + problem + " (got " + value + ")");
      }
      values.put(key.path(), value);
    }
    if (!unused.isEmpty()) {
      throw new IllegalArgumentException("unknown keys " + unused.keySet());
    }
  }

  /** The keys' defaults with the given overrides ({@code path -> text}). */
  public static KeySettings of(List<ConfigKey> keys, Map<String, String> overrides) {
    return new KeySettings(keys, overrides);
  }

  private Object value(String path) {
    Object v = values.get(path);
    if (v == null) {
      throw new IllegalArgumentException("undeclared key " + path);
    }
    return v;
  }

  @Override
  public int integer(String path) {
    return (Integer) value(path);
  }

  @Override
  public String string(String path) {
    return (String) value(path);
  }

  @Override
  public boolean bool(String path) {
    return (Boolean) value(path);
  }
}
