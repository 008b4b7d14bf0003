package io.sextant.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sextant.api.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SextantConfigTest {
  @Test
  void theShippedYamlIsValidAndMatchesTheDefaults() {
    SextantConfig shipped = SextantConfig.load(Path.of("../../dist/src/layout/config/application.yml"), Map.of());
    SextantConfig defaults = SextantConfig.defaults();
    for (ConfigKey key : ConfigKeys.ALL) {
      if (!key.path().equals("core.collectorId") && !key.path().equals("core.timezone")) {
        assertThat(String.valueOf(shipped.string0(key.path()))).as(key.path())
            .isEqualTo(String.valueOf(defaults.string0(key.path())));
      }
    }
  }

  @Test
  void environmentOverridesTheFile(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("application.yml");
    Files.writeString(yaml, "server:\n  grpcPort: 11900\ncore:\n  flushIntervalMillis: 500\n");
    SextantConfig c = SextantConfig.load(yaml,
        Map.of("SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", "250", "SEXTANT_STORAGE", "memory"));
    assertThat(c.integer("server.grpcPort")).isEqualTo(11900);
    assertThat(c.integer("core.flushIntervalMillis")).isEqualTo(250);
    assertThat(c.string("storage.selector")).isEqualTo("memory");
    assertThat(new ConfigKey("receiver.mesh.maxRecordsPerMessage", 0, s -> s, v -> null, "").envName())
        .isEqualTo("SEXTANT_RECEIVER_MESH_MAX_RECORDS_PER_MESSAGE");
  }

  @Test
  void everyProblemIsListedAtOnce(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("application.yml");
    Files.writeString(yaml, "server:\n  grpcPort: 99999\n  colour: blue\ncore:\n  flushIntervalMillis: soon\n");
    ConfigException e = catchThrowableOfType(ConfigException.class,
        () -> SextantConfig.load(yaml, Map.of("SEXTANT_STORAGE", "floppy", "SEXTANT_CORE_TIMEZONE", "Mars/Olympus")));
    assertThat(e.problems()).containsExactlyInAnyOrder(
        "server.colour: unknown key",
        "server.grpcPort: must be between 1 and 65535 (got 99999)",
        "core.flushIntervalMillis: cannot parse 'soon'",
        "SEXTANT_STORAGE: must be one of [memory, elasticsearch] (got floppy)");
  }

  @Test
  void settingsElasticsearchOrTheSpoolCannotTakeAreRefusedAtLoad(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("application.yml");
    Files.writeString(yaml, "core:\n  spool:\n    directory: " + dir.resolve("spool") + "\n");
    ConfigException e = catchThrowableOfType(ConfigException.class,
        () -> SextantConfig.load(yaml, Map.of("SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX", "Bench-A")));
    assertThat(e.problems()).containsExactlyInAnyOrder(
        "SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX: must be lower case letters, digits, '.', '-' or '_',"
            + " starting with a letter or digit (Elasticsearch's index names) (got Bench-A)",
        "core.spool.directory: the spool needs storage.selector elasticsearch (the memory store keeps nothing"
            + " across a restart, so there is nothing to spool for)");
  }

  @Test
  void everyKeyIsDocumented() throws Exception {
    String doc = Files.readString(Path.of("../../docs/configuration.md"));
    for (ConfigKey key : ConfigKeys.ALL) {
      assertThat(doc).as(key.path()).contains("| `" + key.path() + "` | `" + key.envName() + "` |");
    }
  }
}
