package io.sextant.server.assembly;

import io.sextant.server.config.ConfigException;
import io.sextant.server.config.SextantConfig;
import java.nio.file.Path;

/** Entry point: {@code sextant [--config path/to/application.yml]}. */
public final class Main {
  private Main() {}

  /** Without alarm.settingsFile, the alarm-settings.yml next to the configuration file, if there is one. */
  static SextantConfig withAlarmSettings(SextantConfig config, Path configFile) {
    if (!config.string("alarm.settingsFile").isBlank() || configFile == null) {
      return config;
    }
    Path settings = configFile.toAbsolutePath().resolveSibling("alarm-settings.yml");
    return java.nio.file.Files.isRegularFile(settings)
        ? config.with(java.util.Map.of("alarm.settingsFile", settings.toString())) : config;
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
      server = new SextantServer(withAlarmSettings(config, configFile));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::drain, "sextant-shutdown"));
  }
}
