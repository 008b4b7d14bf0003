package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.testkit.net.FreePort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's contract, tested without an image (no base image can be pulled here): the tarball
 * holds what dist/docker/Dockerfile copies and runs, the launcher honours JAVA_OPTS, JAVA_HEAP_OPTS
 * and SEXTANT_* variables, and the distribution becomes ready with exactly the configuration the
 * chart renders.
 */
class ChartEnvLauncherIT {
  private static final Path DOCKERFILE = Path.of("docker", "Dockerfile").toAbsolutePath();
  private static final Duration READY = Duration.ofSeconds(90);

  @TempDir
  static Path unpacked;

  private static String version;
  private static Path home;

  @BeforeAll
  static void unpackTheTarballAsTheImageDoes() throws Exception {
    version = ShippedTarball.version();
    home = ShippedTarball.unpack(unpacked);
  }

  @Test
  void tarballHoldsWhatTheDockerfileCopiesAndRuns() throws Exception {
    String dockerfile = Files.readString(DOCKERFILE);
    assertThat(arg(dockerfile, "SEXTANT_VERSION")).isEqualTo(version);
    assertThat(dockerfile).contains("ADD sextant-${SEXTANT_VERSION}.tar.gz /opt/")
        .contains("ENTRYPOINT [\"/opt/sextant/bin/sextant\"]")
        .contains("FROM ${JRE_IMAGE}");
    assertThat(arg(dockerfile, "JRE_IMAGE")).contains(":17-jre");
    Matcher user = Pattern.compile("(?m)^USER (\\d+):(\\d+)$").matcher(dockerfile);
    assertThat(user.find()).as("a numeric USER").isTrue();
    assertThat(Integer.parseInt(user.group(1))).as("non-root").isPositive();
    assertThat(dockerfile).doesNotContain("-Xmx").contains("-XX:MaxRAMPercentage=");

    String listing = ShippedTarball.run(List.of("tar", "-tvzf", ShippedTarball.file().toString()));
    assertThat(listing).containsPattern("(?m)^-rwxr-xr-x .* sextant/bin/sextant$")
        .containsPattern("(?m) sextant/config/application\\.yml$")
        .containsPattern("(?m) sextant/lib/sextant-server-" + Pattern.quote(version) + "\\.jar$");
    assertThat(home.resolve("bin/sextant")).isExecutable();
  }

  @Test
  void launcherHonoursJavaOptsHeapOptsAndSextantVariables() throws Exception {
    int grpc = FreePort.any();
    int http = FreePort.any();
    String heap = envFromDockerfile("JAVA_HEAP_OPTS");
    Map<String, String> env = Map.of("JAVA_HEAP_OPTS", heap,
        "JAVA_OPTS", "-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -Dsextant.it=launcher",
        "SEXTANT_SERVER_GRPC_PORT", String.valueOf(grpc), "SEXTANT_SERVER_HTTP_PORT", String.valueOf(http),
        "SEXTANT_CORE_COLLECTOR_ID", "launcher-it-7");
    try (LaunchedDistribution s = LaunchedDistribution.start(home, env)) {
      s.awaitReady(http, READY);
      assertThat(s.jvmArguments()).contains("-XX:InitialRAMPercentage=25", "-XX:MaxRAMPercentage=60",
          "-XX:+UseSerialGC", "-Dsextant.it=launcher").doesNotContain("-Xmx512m", "-XX:+UseParallelGC");
      assertThat(s.output()).contains("gRPC receivers on 0.0.0.0:" + grpc).contains("(collector launcher-it-7)");
    }
  }

  @Test
  void launcherWithoutJvmVariablesKeepsTheTarballDefaults() throws Exception {
    int http = FreePort.any();
    Map<String, String> env = Map.of("SEXTANT_SERVER_GRPC_PORT", String.valueOf(FreePort.any()),
        "SEXTANT_SERVER_HTTP_PORT", String.valueOf(http));
    try (LaunchedDistribution s = LaunchedDistribution.start(home, env)) {
      s.awaitReady(http, READY);
      assertThat(s.jvmArguments()).contains("-Xms128m", "-Xmx512m", "-XX:+UseParallelGC")
          .noneMatch(a -> a.contains("RAMPercentage"));
    }
  }

  /** memory-single.yaml rendered by helm; the container's env and its mounted application.yml, nothing else. */
  @Test
  void startsWithExactlyTheConfigurationTheChartRenders(@TempDir Path mounts) throws Exception {
    Helm helm = Helm.required();
    int grpc = FreePort.any();
    int http = FreePort.any();
    Manifests m = Manifests.parse(helm.template("memory-single.yaml", "ports.grpc=" + grpc, "ports.http=" + http)
        .rendered());
    String podName = "sextant-5d8f7c9b6-x2k4q";
    Map<String, String> env = RenderedPod.environment(m, mounts, podName);
    assertThat(env).containsKeys("SEXTANT_CONFIG", "SEXTANT_CORE_COLLECTOR_ID", "JAVA_HEAP_OPTS");

    try (LaunchedDistribution s = LaunchedDistribution.start(home, env)) {
      s.awaitReady(http, READY);
      assertThat(s.output()).contains("gRPC receivers on 0.0.0.0:" + grpc).contains("(collector " + podName + ")");
      assertThat(s.jvmArguments()).contains("-XX:MaxRAMPercentage=50");
    }
  }

  private static String arg(String dockerfile, String name) {
    Matcher m = Pattern.compile("(?m)^ARG " + name + "=(\\S+)$").matcher(dockerfile);
    assertThat(m.find()).as("ARG " + name).isTrue();
    return m.group(1);
  }

  private static String envFromDockerfile(String name) throws IOException {
    Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(Files.readString(DOCKERFILE));
    assertThat(m.find()).as("ENV " + name).isTrue();
    return m.group(1);
  }
}
