package io.sextant.testkit.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A node that cannot start fails fast with Elasticsearch's own explanation and leaves nothing behind. */
class ElasticsearchExtensionStartFailureIT {

  @Test
  void rejectedSettingFailsWithLogTailAndCleansUp() throws Exception {
    Path dataRoot = Path.of(System.getProperty("basedir", "."), "target", "es-data");
    long before = countEntries(dataRoot);
    ElasticsearchExtension es = new ElasticsearchExtension().withSetting("sextant.no.such.setting", "x");
    try {
      assertThatThrownBy(es::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Elasticsearch output (tail)")
          .hasMessageContaining("unknown setting [sextant.no.such.setting]");
      assertThat(es.isRunning()).isFalse();
      assertThat(es.pid()).isEmpty();
      assertThat(countEntries(dataRoot)).isEqualTo(before);
    } finally {
      es.close();
    }
  }

  private static long countEntries(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    }
  }
}
