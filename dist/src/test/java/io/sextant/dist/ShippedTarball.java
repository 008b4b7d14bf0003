package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The tarball {@code package} built, unpacked as a user (or the image) unpacks it. */
final class ShippedTarball {
  static final Path TARGET = Path.of("target").toAbsolutePath();

  private ShippedTarball() {}

  static String version() {
    String version = System.getProperty("sextant.version");
    assertThat(version).as("failsafe passes sextant.version").isNotBlank();
    return version;
  }

  static Path file() {
    Path tarball = TARGET.resolve("sextant-" + version() + ".tar.gz");
    assertThat(tarball).exists();
    return tarball;
  }

  /** Unpacks the tarball into {@code dir} and returns the distribution's home, {@code dir/sextant}. */
  static Path unpack(Path dir) throws IOException, InterruptedException {
    run(List.of("tar", "-xzf", file().toString(), "-C", dir.toString()));
    return dir.resolve("sextant");
  }

  static String run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(command + ": " + out).isZero();
    return out;
  }
}
