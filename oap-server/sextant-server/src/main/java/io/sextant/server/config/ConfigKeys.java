package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.oneOf;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.StorageFactory;
import io.sextant.core.CoreConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Every configuration key Sextant knows, with its default, gathered from where each part declares
 * its own ({@link ServerConfig}, {@code CoreConfig}, {@link QueryConfig}, {@link SecurityConfig},
 * {@link AlarmConfig}, each plugin's factory). docs/configuration.md lists them.
 */
public final class ConfigKeys {
  private ConfigKeys() {}

  /** Every key: the server's, the core's and the query side's, then each plugin's. */
  public static final List<ConfigKey> ALL = all();

  private static List<ConfigKey> all() {
    List<ConfigKey> keys = new ArrayList<>(ServerConfig.KEYS);
    keys.addAll(CoreConfig.KEYS);
    keys.addAll(QueryConfig.KEYS);
    keys.addAll(SecurityConfig.KEYS);
    keys.addAll(AlarmConfig.KEYS);
    keys.add(oneOf("storage.selector", Plugins.STORAGE.get(0).name(),
        Plugins.STORAGE.stream().map(StorageFactory::name).toList(), "storage backend").withAlias("SEXTANT_STORAGE"));
    Plugins.STORAGE.forEach(f -> keys.addAll(f.keys()));
    Plugins.RECEIVERS.forEach(f -> keys.addAll(f.keys())); // each includes its receiver.<name>.enabled
    return List.copyOf(keys);
  }
}
