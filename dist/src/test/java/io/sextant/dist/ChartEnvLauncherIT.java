package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
  private static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final Path DOCKERFILE = Path.of("docker", "Dockerfile").toAbsolutePath();
  private static final Duration READY = Duration.ofSeconds(90);

  @TempDir
  static Path unpacked;

  private static String version;
  private static Path home;

  @BeforeAll
  static void unpackTheTarballAsTheImageDoes() throws Exception {
    version = System.getProperty("sextant.version");
    assertThat(version).as("failsafe passes sextant.version").isNotBlank();
    Path tarball = TARGET.resolve("sextant-" + version + ".tar.gz");
    assertThat(tarball).exists();
    run(List.of("tar", "-xzf", tarball.toString(), "-C", unpacked.toString()));
    home = unpacked.resolve("sextant");
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

    String listing = run(List.of("tar", "-tvzf", TARGET.resolve("sextant-" + version + ".tar.gz").toString()));
    assertThat(listing).containsPattern("(?m)^-rwxr-xr-x .* sextant/bin/sextant$")
        .containsPattern("(?m) sextant/config/application\\.yml$")
        .containsPattern("(?m) sextant/lib/sextant-server-" + Pattern.quote(version) + "\\.jar$");
    assertThat(home.resolve("bin/sextant")).isExecutable();
  }

  @Test
  void launcherHonoursJavaOptsHeapOptsAndSextantVariables() throws Exception {
    int grpc = LaunchedDistribution.freePort();
    int http = LaunchedDistribution.freePort();
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
    int http = LaunchedDistribution.freePort();
    Map<String, String> env = Map.of("SEXTANT_SERVER_GRPC_PORT", String.valueOf(LaunchedDistribution.freePort()),
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
    int grpc = LaunchedDistribution.freePort();
    int http = LaunchedDistribution.freePort();
    Manifests m = Manifests.parse(helm.template("memory-single.yaml", "ports.grpc=" + grpc, "ports.http=" + http)
        .rendered());
    PodSpec pod = m.one(Deployment.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    String podName = "sextant-5d8f7c9b6-x2k4q";

    // The ConfigMap volume, at a temporary path standing for its mount path.
    ConfigMap config = m.one(ConfigMap.class);
    VolumeMount configMount = c.getVolumeMounts().stream().filter(v -> v.getName().equals("config")).findFirst()
        .orElseThrow();
    Path configDir = mounts.resolve("config");
    Files.createDirectories(configDir);
    for (Map.Entry<String, String> file : config.getData().entrySet()) {
      Files.writeString(configDir.resolve(file.getKey()), file.getValue());
    }

    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv()) {
      String value;
      if (e.getValueFrom() == null) {
        value = e.getValue();
      } else if (e.getValueFrom().getFieldRef() != null
          && e.getValueFrom().getFieldRef().getFieldPath().equals("metadata.name")) {
        value = podName;
      } else {
        throw new AssertionError("memory-single renders an env source this test cannot stand in for: " + e);
      }
      if (value.startsWith(configMount.getMountPath() + "/")) {
        value = configDir.resolve(value.substring(configMount.getMountPath().length() + 1)).toString();
      }
      env.put(e.getName(), value);
    }
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

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(command + ": " + out).isZero();
    return out;
  }
}
