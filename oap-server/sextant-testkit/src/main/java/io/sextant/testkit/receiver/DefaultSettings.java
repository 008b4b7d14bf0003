package io.sextant.testkit.receiver;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A plugin's keys at their defaults, some replaced; parsed and checked as the server would. */
final class DefaultSettings implements Settings {
  private final Map<String, Object> values = new HashMap<>();

  DefaultSettings(List<ConfigKey> keys, Map<String, String> overrides) {
    for (ConfigKey key : keys) {
      String raw = overrides.get(key.path());
      Object value = raw == null ? key.defaultValue() : key.parser().apply(raw);
      String problem = key.check().apply(value);
      if (problem != null) {
        throw new IllegalArgumentException(key.path() + ": " + problem);
      }
      values.put(key.path(), value);
    }
    for (String path : overrides.keySet()) {
      if (!values.containsKey(path)) {
        throw new IllegalArgumentException(path + ": not a key of this plugin");
      }
    }
  }

  @Override
  public int integer(String path) {
    return (Integer) get(path);
  }

  @Override
  public String string(String path) {
    return (String) get(path);
  }

  @Override
  public boolean bool(String path) {
    return (Boolean) get(path);
  }

  private Object get(String path) {
    Object v = values.get(path);
    if (v == null) {
      throw new IllegalArgumentException("not a declared key: " + path);
    }
    return v;
  }
}
