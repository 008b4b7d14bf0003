package io.sextant.server.assembly;

import io.sextant.server.config.ConfigException;
import io.sextant.server.config.SextantConfig;
import java.nio.file.Path;

/** Entry point: {@code sextant [--config path/to/application.yml]}. */
public final class Main {
  private Main() {}

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
    SextantConfig config;
    try {
      config = configFile == null ? SextantConfig.load(java.util.Map.of(), System.getenv())
          : SextantConfig.load(configFile, System.getenv());
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SextantServer server = new SextantServer(config).start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::drain, "sextant-shutdown"));
  }
}
