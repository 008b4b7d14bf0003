package io.sextant.dist;

import io.sextant.testkit.poll.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged launcher ({@code bin/sextant} of an unpacked tarball) started as a real process with
 * an environment built from scratch, as a container gets it: only what the caller passes, plus
 * {@code PATH} and {@code JAVA_HOME} to find a JVM.
 */
final class LaunchedDistribution implements AutoCloseable {
  private final Process process;
  private final Path log;

  private LaunchedDistribution(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static LaunchedDistribution start(Path home, Map<String, String> env) throws IOException {
    Path log = Files.createTempFile("sextant-launched", ".log");
    ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/sextant").toString()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().put("PATH", System.getenv("PATH"));
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().putAll(env);
    return new LaunchedDistribution(pb.start(), log);
  }

  /** Fails with the process output when the process has exited (an OutOfMemoryError exits it). */
  void assertAlive() {
    try {
      process.waitFor(200, TimeUnit.MILLISECONDS); // a process that is dying shows it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!process.isAlive()) {
      throw new AssertionError("Sextant exited with " + process.exitValue() + ":\n" + output());
    }
  }

  /** The JVM's arguments: the launcher execs java, so the started process is the JVM itself. */
  List<String> jvmArguments() {
    return List.of(process.info().arguments().orElseThrow(() -> new AssertionError("no process arguments")));
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until GET /readyz answers 200; fails with the process output if it exits or takes too long. */
  void awaitReady(int httpPort, Duration timeout) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    try {
      Poll.until("/readyz 200", timeout, () -> {
        if (!process.isAlive()) {
          throw new AssertionError("Sextant exited with " + process.exitValue());
        }
        try {
          return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
              .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
          return -1; // not listening yet
        }
      }, status -> status == 200);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ":\n" + output(), e);
    }
  }



  /** Its exit code; fails with the output if it is still running after {@code timeout}. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("Sextant still runs after " + timeout + ":\n" + output());
    }
    return process.exitValue();
  }

  /** SIGKILL, as the kernel's OOM killer or a node losing power stops it: no hook runs. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("Sextant did not die of SIGKILL within 30 s");
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy(); // SIGTERM: the shutdown hook runs as it would on a pod's termination
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
