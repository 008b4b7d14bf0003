package io.sextant.server.assembly;

import io.sextant.server.config.ConfigException;
import io.sextant.server.config.SextantConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/** Entry point: {@code sextant [--config path/to/application.yml]}. */
public final class Main {
  private Main() {}

  /**
   * Without alarm.settingsFile: the alarm-settings.yml next to the configuration file, else the
   * distribution's (the launcher passes its home as {@code sextant.home}; a chart's ConfigMap holds
   * only application.yml), if there is one. The same for query.horizonTemplates and its directory.
   */
  static SextantConfig withDefaultFiles(SextantConfig config, Path configFile) {
    SextantConfig withAlarms = withDefault(config, configFile, "alarm.settingsFile", "alarm-settings.yml");
    return withDefault(withAlarms, configFile, "query.horizonTemplates", "horizon");
  }

  private static SextantConfig withDefault(SextantConfig config, Path configFile, String key, String name) {
    if (!config.string(key).isBlank()) {
      return config;
    }
    List<Path> candidates = new ArrayList<>();
    if (configFile != null) {
      candidates.add(configFile.toAbsolutePath().resolveSibling(name));
    }
    String home = System.getProperty("sextant.home");
    if (home != null) {
      candidates.add(Path.of(home, "config", name));
    }
    return candidates.stream().filter(Files::exists).findFirst()
        .map(p -> config.with(Map.of(key, p.toString()))).orElse(config);
  }

  public static void main(String[] args) {
    Path configFile = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        configFile = Path.of(args[++i]);
      } else {
        System.err.println("usage: sextant [--config application.yml]");
        System.exit(2);
      }
    }
    SextantServer server;
    try {
      SextantConfig config = configFile == null ? SextantConfig.load(java.util.Map.of(), System.getenv())
          : SextantConfig.load(configFile, System.getenv());
      server = new SextantServer(withDefaultFiles(config, configFile));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    try {
      server.start();
    } catch (RuntimeException e) {
      // Half started (a port taken): the threads already running would keep up a process that serves
      // nothing. Exit as a killed collector would (the spool, if any, is taken over at the next start),
      // so a supervisor sees it and the log says why.
      LoggerFactory.getLogger(Main.class).error("Sextant could not start: {}", e.getMessage(), e);
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::drain, "sextant-shutdown"));
  }
}
