package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball's {@code lib/} holds everything the server needs at run time. Maven lets a test-scoped
 * declaration in dist narrow a runtime dependency of the server, and then tests on Maven's classpath
 * pass while the shipped launcher fails with {@code NoClassDefFoundError} in the mode that needs it.
 */
class DistributionClasspathIT {
  /** Written by sextant-server's build from its own resolution (dependency:build-classpath). */
  private static final Path SERVER_CLASSPATH =
      Path.of("..", "oap-server", "sextant-server", "target", "runtime-classpath.txt").toAbsolutePath();

  @TempDir
  static Path unpacked;

  private static Path lib;

  @BeforeAll
  static void unpack() throws Exception {
    lib = ShippedTarball.unpack(unpacked).resolve("lib");
  }

  @Test
  void libHoldsEveryJarOfTheServersRuntimeClasspath() throws Exception {
    assertThat(SERVER_CLASSPATH).as("built by sextant-server's package phase").exists();
    Set<String> needed = Arrays.stream(Files.readString(SERVER_CLASSPATH).trim().split(File.pathSeparator))
        .map(p -> Path.of(p).getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    assertThat(needed).as("the server's runtime classpath").hasSizeGreaterThan(50)
        .anyMatch(j -> j.startsWith("kubernetes-model-core-"));
    assertThat(jarsIn(lib)).containsAll(needed);
  }

  /**
   * Every class Sextant's own jars refer to is in {@code lib/}: jdeps resolves their references
   * against the shipped jars alone, as the launcher's class loader will.
   */
  @Test
  void everyClassSextantRefersToIsShipped() throws Exception {
    List<String> own = jarsIn(lib).stream()
        .filter(j -> j.startsWith("sextant-") || j.startsWith("storage-") || j.startsWith("query-graphql-"))
        .map(j -> lib.resolve(j).toString()).toList();
    assertThat(own).as("Sextant's jars in lib/").hasSizeGreaterThan(8);
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jdeps")
        .toString(), "--multi-release", "17", "--missing-deps", "--class-path", lib + "/*"));
    command.addAll(own);
    String missing = ShippedTarball.run(command).lines()
        .filter(l -> l.contains("not found")).collect(Collectors.joining("\n"));
    assertThat(missing).as("classes Sextant refers to that lib/ lacks").isEmpty();
  }

  private static Set<String> jarsIn(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jar"))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
