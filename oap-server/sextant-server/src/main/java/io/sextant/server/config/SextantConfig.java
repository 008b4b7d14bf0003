package io.sextant.server.config;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The validated configuration: defaults from {@link ConfigKeys}, then the YAML file, then {@code
 * SEXTANT_*} environment variables. Unknown keys and bad values fail with every problem listed.
 */
public final class SextantConfig implements Settings {
  private final Map<String, Object> values;

  private SextantConfig(Map<String, Object> values) {
    this.values = values;
  }

  public static SextantConfig defaults() {
    return load(Map.of(), Map.of());
  }

  public static SextantConfig load(Path yamlFile, Map<String, String> env) {
    try (InputStream in = Files.newInputStream(yamlFile)) {
      return load(parseYaml(in, yamlFile.toString()), env);
    } catch (IOException e) {
      throw new ConfigException(List.of("cannot read " + yamlFile + ": " + e.getMessage()));
    }
  }

  /** Loads from already-flattened YAML ({@code path -> text}) and an environment. */
  public static SextantConfig load(Map<String, String> yaml, Map<String, String> env) {
    List<String> errors = new ArrayList<>();
    Map<String, ConfigKey> keys = new LinkedHashMap<>();
    ConfigKeys.ALL.forEach(k -> keys.put(k.path(), k));
    for (String path : yaml.keySet()) {
      if (!keys.containsKey(path)) {
        errors.add(path + ": unknown key");
      }
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (ConfigKey key : keys.values()) {
      String raw = env.get(key.envName());
      String origin = key.envName();
      String alias = key.alias(); // a short name operators and the Helm chart use
      if (raw == null && alias != null && env.get(alias) != null) {
        raw = env.get(alias);
        origin = alias;
      }
      if (raw == null) {
        raw = yaml.get(key.path());
        origin = key.path();
      }
      Object value = key.defaultValue();
      if (raw != null && !raw.isEmpty()) {
        try {
          value = key.parser().apply(raw.trim());
        } catch (RuntimeException e) {
          errors.add(origin + ": cannot parse '" + raw + "'");
          continue;
        }
      }
      String problem = key.check().apply(value);
      if (problem != null) {
        errors.add(origin + ": " + problem + " (got " + value + ")");
      }
      values.put(key.path(), value);
    }
    if (errors.isEmpty()) {
      try {
        ZoneId.of((String) values.get("core.timezone"));
      } catch (DateTimeException e) {
        errors.add("core.timezone: unknown time zone " + values.get("core.timezone"));
      }
    }
    if (!((String) values.get("core.spool.directory")).isBlank() && "memory".equals(values.get("storage.selector"))) {
      errors.add("core.spool.directory: the spool needs storage.selector elasticsearch (the memory store keeps"
          + " nothing across a restart, so there is nothing to spool for)");
    }
    if (!errors.isEmpty()) {
      throw new ConfigException(errors);
    }
    return new SextantConfig(values);
  }

  static Map<String, String> parseYaml(InputStream in, String name) {
    Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    Map<String, String> flat = new LinkedHashMap<>();
    if (root == null) {
      return flat;
    }
    if (!(root instanceof Map<?, ?> map)) {
      throw new ConfigException(List.of(name + ": top level must be a mapping"));
    }
    flatten("", map, flat);
    return flat;
  }

  private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
    map.forEach((k, v) -> {
      String path = prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k;
      if (v instanceof Map<?, ?> nested) {
        flatten(path, nested, out);
      } else {
        out.put(path, v == null ? "" : String.valueOf(v));
      }
    });
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

  /** The value as text, whatever its type (for listings and comparisons). */
  public String string0(String path) {
    return String.valueOf(get(path));
  }

  private Object get(String path) {
    Object v = values.get(path);
    if (v == null && !values.containsKey(path)) {
      throw new IllegalArgumentException("no such configuration key: " + path);
    }
    return v;
  }

  /** A copy with some values replaced (for tests and tools); the result is validated again. */
  public SextantConfig with(Map<String, String> overrides) {
    Map<String, String> yaml = new LinkedHashMap<>();
    values.forEach((k, v) -> yaml.put(k, String.valueOf(v)));
    yaml.putAll(overrides);
    return load(yaml, Map.of());
  }
}
