package io.sextant.server.testing;

import io.sextant.testkit.net.FreePort;
import io.sextant.testkit.poll.Poll;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real collector in its own JVM (the test's class path, {@code Main}), configured through the
 * environment as the image is, on free local ports, with its output in a log file. Stopped with
 * SIGTERM ({@link #terminate}) as Kubernetes stops a pod, or SIGKILL ({@link #kill}).
 */
public final class CollectorProcess implements AutoCloseable {
  private static final Pattern MESH_ACCEPTED =
      Pattern.compile("sextant_receiver_records_accepted_total\\{receiver=\"mesh\"} ([0-9.E]+)");
  private static final Pattern LOGGED_MESH_ACCEPTED =
      Pattern.compile("records accepted by the receivers: .*\\bmesh=([0-9]+)");

  public final String collectorId;
  public final int grpcPort;
  public final int httpPort;
  public final Path log;
  private final Process process;

  private CollectorProcess(String collectorId, Map<String, String> env) throws IOException {
    this.collectorId = collectorId;
    this.grpcPort = FreePort.any();
    this.httpPort = FreePort.any();
    this.log = Files.createTempFile("sextant-" + collectorId, ".log");
    ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        "io.sextant.server.assembly.Main")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> all = pb.environment();
    all.put("SEXTANT_SERVER_HOST", "127.0.0.1");
    all.put("SEXTANT_SERVER_GRPC_PORT", String.valueOf(grpcPort));
    all.put("SEXTANT_SERVER_HTTP_PORT", String.valueOf(httpPort));
    all.put("SEXTANT_CORE_TIMEZONE", "UTC");
    all.put("SEXTANT_CORE_COLLECTOR_ID", collectorId);
    all.put("SEXTANT_QUERY_WARM_UP_SECONDS", "0"); // a core for its seconds after each start; QueryWarmUpTest runs it
    all.putAll(env);
    this.process = pb.start();
  }

  /** Starts a collector with these environment variables (beside host, ports, zone and id). */
  public static CollectorProcess start(String collectorId, Map<String, String> env) throws IOException {
    return new CollectorProcess(collectorId, env);
  }

  /** The environment of a collector on the test Elasticsearch, with {@code extra} on top. */
  public static Map<String, String> onElasticsearch(String hostAndPort, String indexPrefix, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("SEXTANT_STORAGE_SELECTOR", "elasticsearch");
    env.put("SEXTANT_STORAGE_ELASTICSEARCH_HOSTS", hostAndPort);
    env.put("SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX", indexPrefix);
    env.putAll(extra);
    return env;
  }

  public String grpcAddress() {
    return "127.0.0.1:" + grpcPort;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits until {@code /readyz} answers 200; fails with the collector's log if it dies or takes 120 s. */
  public CollectorProcess awaitReady() throws Exception {
    try {
      Poll.until("collector " + collectorId + " ready", Duration.ofSeconds(120), () -> {
        if (!process.isAlive()) {
          throw new AssertionError("collector " + collectorId + " died");
        }
        try {
          return readyz() == 200;
        } catch (IOException e) {
          return false; // not listening yet
        }
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + logText(), e);
    }
    return this;
  }

  /** The status of {@code /readyz}; an IOException once the port is closed. */
  public int readyz() throws IOException, InterruptedException {
    return TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
        .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  public String get(String path) throws IOException, InterruptedException {
    return TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Mesh records accepted so far, from {@code /metrics}. */
  public long meshAccepted() throws IOException, InterruptedException {
    Matcher m = MESH_ACCEPTED.matcher(get("/metrics"));
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /** Waits until {@code /metrics} shows at least {@code expected} mesh records accepted; returns the count. */
  public long awaitMeshAccepted(long expected) throws Exception {
    return Poll.until(expected + " mesh records accepted by " + collectorId, Duration.ofSeconds(15),
        this::meshAccepted, accepted -> accepted >= expected);
  }

  /** SIGTERM, as the kubelet sends when it deletes a pod: the collector drains and exits. */
  public void terminate() {
    process.destroy();
  }

  /** SIGKILL: nothing more is written. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
  }

  public boolean waitFor(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS);
  }

  /** After a drain: the mesh records accepted, as the collector logged them when it stopped. */
  public long loggedMeshAccepted() throws IOException {
    Matcher m = LOGGED_MESH_ACCEPTED.matcher(logText());
    if (!m.find()) {
      throw new AssertionError("collector " + collectorId + " logged no final counts: " + logText());
    }
    return Long.parseLong(m.group(1));
  }

  public String logText() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
