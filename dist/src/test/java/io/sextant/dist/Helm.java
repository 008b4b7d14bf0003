package io.sextant.dist;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The {@code helm} binary the chart tests run: {@code -Dhelm.binary}, then {@code $HELM}, then the
 * {@code PATH}. Where there is none the tests are skipped (a JUnit assumption), never failed: helm
 * is a Go program these machines may not have (.ci/run builds one when it can).
 */
final class Helm {
  static final Path CHART = Path.of("helm", "sextant").toAbsolutePath();
  static final Path VALUES = Path.of("src", "test", "resources", "helm").toAbsolutePath();

  /** The API the manifests are rendered for (helm built with go install would assume 1.20). */
  static final String KUBE_VERSION = "1.30.0";

  private final Path binary;

  private Helm(Path binary) {
    this.binary = binary;
  }

  /** The helm to use, or the test is skipped with the reason. */
  static Helm required() {
    Optional<Path> found = locate();
    assumeTrue(found.isPresent(), "no helm binary (-Dhelm.binary, $HELM or PATH): chart tests skipped. "
        + "Build one with: go install helm.sh/helm/v3/cmd/helm@v3.17.3");
    return new Helm(found.get());
  }

  static Optional<Path> locate() {
    List<String> candidates = new ArrayList<>();
    String property = System.getProperty("helm.binary");
    if (property != null && !property.isBlank()) {
      candidates.add(property);
    }
    String env = System.getenv("HELM");
    if (env != null && !env.isBlank()) {
      candidates.add(env);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        candidates.add(Path.of(dir, "helm").toString());
      }
    }
    return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst();
  }

  /** helm template of one values file (and {@code --set} pairs): release "sextant" in "observability". */
  Result template(String valuesFile, String... sets) {
    List<String> args = new ArrayList<>(List.of("template", "sextant", CHART.toString(), "--namespace",
        "observability", "--kube-version", KUBE_VERSION, "-f", VALUES.resolve(valuesFile).toString()));
    for (String set : sets) {
      args.add("--set");
      args.add(set);
    }
    return run(args);
  }

  Result run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(args);
    try {
      Path out = Files.createTempFile("helm-out", ".txt");
      Path err = Files.createTempFile("helm-err", ".txt");
      ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      // helm keeps its caches and plugins under HOME and XDG dirs: a throwaway place, so a test run
      // never reads or writes the user's repositories.
      Path home = Files.createTempDirectory("helm-home");
      pb.environment().put("HELM_CACHE_HOME", home.resolve("cache").toString());
      pb.environment().put("HELM_CONFIG_HOME", home.resolve("config").toString());
      pb.environment().put("HELM_DATA_HOME", home.resolve("data").toString());
      Process p = pb.start();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("helm did not finish in 2 minutes: " + command);
      }
      Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
      Files.delete(out);
      Files.delete(err);
      deleteTree(home); // one per helm call: left behind, a test run leaves hundreds in /tmp
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  record Result(int exitCode, String stdout, String stderr) {
    String rendered() {
      if (exitCode != 0) {
        throw new AssertionError("helm failed (" + exitCode + "): " + stderr);
      }
      return stdout;
    }
  }
}
