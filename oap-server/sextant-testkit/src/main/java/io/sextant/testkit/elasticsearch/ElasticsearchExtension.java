package io.sextant.testkit.elasticsearch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a real Elasticsearch {@value ElasticsearchDistribution#VERSION} node (the official integ-test
 * distribution from Maven Central, no Docker) for the tests of one class:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ElasticsearchExtension ES = new ElasticsearchExtension();
 * ... ES.httpUrl() / ES.hostAndPort() ...
 * }</pre>
 *
 * <p>One process per instance, started in {@code beforeAll} and stopped, with its data deleted, in
 * {@code afterAll}. {@link #stop()} and {@link #start()} restart it on the same data directory and ports,
 * for outage tests. The node is single-node, plain HTTP without security, bound to 127.0.0.1 on random
 * free ports, with a 512 MB heap. When the tests run as root, Elasticsearch (which refuses root) runs as
 * the system user {@code sextant-es} (property {@code sextant.es.user}), created if missing.
 *
 * <p>Where things go: the distribution is unpacked once per machine into
 * {@code ${java.io.tmpdir}/sextant-es/elasticsearch-VERSION} ({@code -Dsextant.es.root}); each instance
 * gets {@code <module>/target/es-data/<random>/} ({@code -Dsextant.es.dataRoot}), or a directory under
 * the shared root when the module directory is not reachable by the unprivileged user. Set
 * {@code -Dsextant.es.keepData=true} to keep instance directories (data, logs) after the tests.
 */
public final class ElasticsearchExtension implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchExtension.class);

  /** The Elasticsearch version this extension runs. */
  public static final String ELASTICSEARCH_VERSION = ElasticsearchDistribution.VERSION;

  static final String DATA_ROOT_PROPERTY = "sextant.es.dataRoot";
  static final String KEEP_DATA_PROPERTY = "sextant.es.keepData";

  private static final String HOST = "127.0.0.1";
  private static final String SERVER_MAIN_CLASS = "org.elasticsearch.bootstrap.Elasticsearch";
  private static final int MAX_START_ATTEMPTS = 3;
  private static final Pattern UNKNOWN_SETTING = Pattern.compile("unknown setting \\[([^\\]]+)\\]");

  /**
   * Runs the Elasticsearch launcher as a child and kills it when this JVM goes away without cleaning up
   * (even by SIGKILL): stdin stays an open pipe from the test JVM, and EOF on it means the JVM died.
   * SIGTERM makes the launcher stop the server gracefully.
   */
  private static final String WATCHDOG_SCRIPT = String.join("\n",
      "exec 3<&0",
      "\"$@\" </dev/null &",
      "es=$!",
      "trap 'kill -TERM \"$es\" 2>/dev/null' TERM INT HUP",
      "( while IFS= read -r _; do :; done <&3; kill -TERM \"$es\" 2>/dev/null ) &",
      "watcher=$!",
      "exec 3<&-",
      "wait \"$es\"; rc=$?",
      "while kill -0 \"$es\" 2>/dev/null; do wait \"$es\"; rc=$?; done",
      "kill \"$watcher\" 2>/dev/null",
      "exit $rc");

  private final Duration startTimeout;
  private final Duration stopTimeout;
  private final String heap;
  private final Map<String, String> extraSettings = new LinkedHashMap<>();

  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2))
      .version(HttpClient.Version.HTTP_1_1)
      .build();

  // State; guarded by this.
  private Path esHome;
  private Path javaHome;
  private volatile Path instanceDir;
  private int httpPort = -1;
  private int transportPort = -1;
  private final Set<String> droppedSettings = new java.util.HashSet<>();
  // volatile: also read, without the lock, by the shutdown hook
  private volatile Process launcher;
  private volatile ProcessHandle server;
  private Thread shutdownHook;
  private String ownerContextId;
  private boolean everStarted;
  private Duration lastStartDuration;
  private long consoleOffset;

  private static ElasticsearchExtension shared;
  private boolean isShared;
  /** A shared node's indices when the current class began. */
  private Set<String> indicesBefore = Set.of();

  /**
   * One node for every test class of this JVM that registers it: started by the first class, left
   * running after each and stopped when the JVM exits, so classes do not each pay a start (about
   * 11 s on a 2-core machine). After each class the indices it made are deleted, so the next one
   * finds the node as the first did. A class that shares it never stops, restarts or configures it.
   */
  public static synchronized ElasticsearchExtension shared() {
    if (shared == null) {
      shared = new ElasticsearchExtension();
      shared.isShared = true;
    }
    return shared;
  }

  /** 512 MB heap, 120 s start timeout, 30 s graceful stop timeout. */
  public ElasticsearchExtension() {
    this(Duration.ofSeconds(120), Duration.ofSeconds(30), "512m");
  }

  public ElasticsearchExtension(Duration startTimeout, Duration stopTimeout, String heap) {
    this.startTimeout = startTimeout;
    this.stopTimeout = stopTimeout;
    this.heap = heap;
  }

  /** Adds an {@code elasticsearch.yml} setting (before the first start); overrides the defaults. */
  public synchronized ElasticsearchExtension withSetting(String key, String value) {
    if (everStarted) {
      throw new IllegalStateException("Settings must be given before the first start");
    }
    extraSettings.put(key, value);
    return this;
  }

  // ---------------------------------------------------------------- JUnit

  @Override
  public void beforeAll(ExtensionContext context) {
    synchronized (this) {
      if (isRunning()) {
        if (isShared && ownerContextId == null) { // a class after the one that started it
          ownerContextId = context.getUniqueId();
          indicesBefore = indexNames();
        }
        return; // e.g. @Nested classes inherit the extension; the outermost owns the node
      }
      ownerContextId = context.getUniqueId();
      indicesBefore = Set.of();
    }
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    synchronized (this) {
      if (ownerContextId != null && !ownerContextId.equals(context.getUniqueId())) {
        return;
      }
      ownerContextId = null;
      if (isShared) {
        Set<String> made = new TreeSet<>(indexNames());
        made.removeAll(indicesBefore);
        deleteIndices(made);
        return;
      }
    }
    close();
  }

  // ---------------------------------------------------------------- public API

  /** {@code 127.0.0.1:<http port>}. */
  public synchronized String hostAndPort() {
    requirePorts();
    return HOST + ":" + httpPort;
  }

  /** {@code http://127.0.0.1:<http port>} (no trailing slash). */
  public synchronized String httpUrl() {
    requirePorts();
    return "http://" + HOST + ":" + httpPort;
  }

  public synchronized String host() {
    return HOST;
  }

  /** The HTTP port; fixed for the life of the instance, across stop/start. */
  public synchronized int httpPort() {
    requirePorts();
    return httpPort;
  }

  public synchronized int transportPort() {
    requirePorts();
    return transportPort;
  }

  public synchronized boolean isRunning() {
    return launcher != null && launcher.isAlive();
  }

  /** This instance's directory (config/, data/, logs/, tmp/). */
  public synchronized Path instanceDirectory() {
    if (instanceDir == null) {
      throw new IllegalStateException("Elasticsearch was never started");
    }
    return instanceDir;
  }

  /** The Elasticsearch server JVM's pid, if running. */
  public synchronized Optional<Long> pid() {
    return server != null && server.isAlive() ? Optional.of(server.pid()) : Optional.empty();
  }

  /** Resident set size of the server JVM in bytes (from /proc), or -1 if unknown. */
  public synchronized long residentSetSizeBytes() {
    if (server == null || !server.isAlive()) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(server.pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // not Linux, or gone
    }
    return -1;
  }

  /** How long the last successful start took, from launch to a yellow/green cluster. */
  public synchronized Optional<Duration> lastStartDuration() {
    return Optional.ofNullable(lastStartDuration);
  }

  /** The last {@code lines} lines of this instance's console output (all starts). */
  public synchronized String logTail(int lines) {
    return instanceDir == null ? "" : tail(instanceDir.resolve("logs/console.log"), 0, lines);
  }

  /**
   * Starts the node and waits (up to the start timeout) until the cluster is yellow or green. After
   * {@link #stop()} it restarts on the same data directory and ports. No-op if already running.
   */
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    boolean firstStart = instanceDir == null;
    if (firstStart) {
      try {
        prepareInstance();
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }
    RuntimeException failure = null;
    for (int attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++) {
      try {
        launchAndAwait();
        everStarted = true;
        return;
      } catch (StartFailure e) {
        failure = e;
        String log = e.logTail;
        Matcher unknown = UNKNOWN_SETTING.matcher(log);
        if (unknown.find() && optionalSettings().contains(unknown.group(1)) && droppedSettings.add(unknown.group(1))) {
          LOG.warn("This Elasticsearch distribution rejects setting [{}]; retrying without it", unknown.group(1));
          continue;
        }
        if (!everStarted && (log.contains("BindException") || log.contains("Address already in use"))) {
          LOG.warn("Port clash on {}/{}; retrying with other ports", httpPort, transportPort);
          choosePorts();
          continue;
        }
        break;
      } catch (RuntimeException e) {
        failure = e;
        break;
      }
    }
    if (firstStart) {
      close(); // nothing worth keeping: the failure message carries the log tail
    }
    throw failure;
  }

  /**
   * Stops the node: SIGTERM to the Elasticsearch server process, wait up to the stop timeout, then
   * SIGKILL the whole process tree. Data and ports are kept for {@link #start()}. No-op if not running.
   */
  public synchronized void stop() {
    if (launcher == null) {
      return;
    }
    try {
      terminate(launcher, server, stopTimeout);
    } finally {
      launcher = null;
      server = null;
    }
  }

  /** The node's (visible) indices. */
  private Set<String> indexNames() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(httpUrl() + "/_cat/indices?h=index"))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("cannot list indices: " + r.statusCode() + " " + r.body());
      }
      Set<String> names = new TreeSet<>();
      for (String name : r.body().split("\\s+")) {
        if (!name.isBlank()) {
          names.add(name);
        }
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list indices", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Deletes indices by name (Elasticsearch 8 refuses deleting by wildcard). */
  private void deleteIndices(Set<String> names) {
    if (names.isEmpty()) {
      return;
    }
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(httpUrl() + "/" + String.join(",", names)
          + "?ignore_unavailable=true")).DELETE().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        LOG.warn("Could not delete indices {}: {} {}", names, r.statusCode(), r.body());
      }
    } catch (IOException e) {
      LOG.warn("Could not delete indices {}", names, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the node and deletes its directory (unless -Dsextant.es.keepData=true). Idempotent. */
  @Override
  public synchronized void close() {
    try {
      stop();
    } finally {
      removeShutdownHook();
      deleteInstanceDir();
      instanceDir = null;
      httpPort = -1;
      transportPort = -1;
      everStarted = false;
      droppedSettings.clear();
    }
  }

  @Override
  public String toString() {
    return "ElasticsearchExtension[" + (httpPort > 0 ? httpUrl() : "not started") + "]";
  }

  // ---------------------------------------------------------------- internals

  private void requirePorts() {
    if (httpPort < 0) {
      throw new IllegalStateException("Elasticsearch has not been started (register the extension with "
          + "@RegisterExtension on a static field, or call start())");
    }
  }

  private void prepareInstance() {
    esHome = ElasticsearchDistribution.install();
    javaHome = ElasticsearchDistribution.javaHome();
    if (OsUser.isRoot()) {
      OsUser.ensureEsUserExists();
    }
    Path dataRoot = dataRoot();
    instanceDir = dataRoot.resolve(UUID.randomUUID().toString().substring(0, 8));
    try {
      ElasticsearchDistribution.createWorldReadableDirectories(instanceDir);
      for (String sub : List.of("config", "data", "logs", "tmp")) {
        Files.createDirectories(instanceDir.resolve(sub));
      }
      copyDistributionConfig(esHome.resolve("config"), instanceDir.resolve("config"));
      Files.writeString(instanceDir.resolve("config/jvm.options"), jvmOptions(), StandardCharsets.UTF_8);
      Files.createDirectories(instanceDir.resolve("config/jvm.options.d"));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare " + instanceDir, e);
    }
    OsUser.chownToEsUser(instanceDir);
    choosePorts();
    installShutdownHook();
  }

  private static Path dataRoot() {
    String explicit = System.getProperty(DATA_ROOT_PROPERTY);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit).toAbsolutePath().normalize();
    }
    Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    Path preferred = base.resolve("target").resolve("es-data").toAbsolutePath().normalize();
    if (OsUser.isRoot() && !OsUser.traversableByOthers(preferred)) {
      Path fallback = ElasticsearchDistribution.sharedRoot().resolve("es-data");
      LOG.info("{} is not reachable by user '{}'; using {} for instance data", preferred, OsUser.esUserName(),
          fallback);
      return fallback;
    }
    return preferred;
  }

  private static void copyDistributionConfig(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /**
   * The distribution's jvm.options uses paths relative to ES_HOME (logs/gc.log, data), which is shared
   * and read-only here; these point into the instance directory instead. No heap dumps (disk).
   */
  private String jvmOptions() {
    Path logs = instanceDir.resolve("logs");
    return String.join("\n",
        "## Written by sextant-testkit; heap comes from ES_JAVA_OPTS",
        "-XX:+UseG1GC",
        "-Djava.io.tmpdir=${ES_TMPDIR}",
        "20-:--add-modules=jdk.incubator.vector",
        "-XX:+ExitOnOutOfMemoryError",
        "-XX:ErrorFile=" + logs.resolve("hs_err_pid%p.log"),
        "-Xlog:gc*,gc+age=trace,safepoint:file=" + logs.resolve("gc.log")
            + ":utctime,level,pid,tags:filecount=4,filesize=16m",
        "");
  }

  /** Settings that exist only when the corresponding module ships in the distribution. */
  private Set<String> optionalSettings() {
    return Set.of("xpack.security.enabled", "xpack.ml.enabled", "ingest.geoip.downloader.enabled");
  }

  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("cluster.name", "sextant-test");
    s.put("node.name", "sextant-test-node");
    s.put("discovery.type", "single-node");
    s.put("network.host", HOST);
    s.put("http.port", Integer.toString(httpPort));
    s.put("transport.port", Integer.toString(transportPort));
    s.put("path.data", instanceDir.resolve("data").toString());
    s.put("path.logs", instanceDir.resolve("logs").toString());
    s.put("cluster.routing.allocation.disk.threshold_enabled", "false");
    // With thresholds off, every disk-usage refresh (30 s by default) lifts read_only_allow_delete
    // blocks: a test that sets one to act out a full disk would race it.
    s.put("cluster.info.update.interval", "1h");
    s.put("action.destructive_requires_name", "false");
    // The integ-test zip ships only x-pack-core, x-pack-security, transport-netty4 and apm: there is no
    // ingest-geoip module, so its setting would be rejected as unknown.
    if (Files.isDirectory(esHome.resolve("modules/x-pack-core"))) {
      s.put("xpack.security.enabled", "false");
      s.put("xpack.ml.enabled", "false");
    }
    if (Files.isDirectory(esHome.resolve("modules/ingest-geoip"))) {
      s.put("ingest.geoip.downloader.enabled", "false");
    }
    s.putAll(extraSettings);
    droppedSettings.forEach(s::remove);
    return s;
  }

  private static String yaml(Map<String, String> settings) {
    StringBuilder yml = new StringBuilder("# Written by sextant-testkit\n");
    settings.forEach((k, v) -> yml.append(k).append(": \"")
        .append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n"));
    return yml.toString();
  }

  private void choosePorts() {
    try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getByName(HOST));
         ServerSocket b = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      httpPort = a.getLocalPort();
      transportPort = b.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find free ports", e);
    }
  }

  private static final class StartFailure extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    final String logTail;

    StartFailure(String message, String logTail, Throwable cause) {
      super(message + "\n---- Elasticsearch output (tail) ----\n" + logTail, cause);
      this.logTail = logTail;
    }
  }

  private void launchAndAwait() {
    Path console = instanceDir.resolve("logs/console.log");
    Path pidFile = instanceDir.resolve("es.pid");
    try {
      Files.writeString(instanceDir.resolve("config/elasticsearch.yml"), yaml(settings()), StandardCharsets.UTF_8);
      OsUser.chownToEsUser(instanceDir.resolve("config"));
      Files.deleteIfExists(pidFile);
      consoleOffset = Files.exists(console) ? Files.size(console) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    Map<String, String> esEnv = new LinkedHashMap<>();
    esEnv.put("ES_JAVA_HOME", javaHome.toString());
    esEnv.put("ES_PATH_CONF", instanceDir.resolve("config").toString());
    esEnv.put("ES_TMPDIR", instanceDir.resolve("tmp").toString());
    esEnv.put("ES_JAVA_OPTS", "-Xms" + heap + " -Xmx" + heap);
    esEnv.put("LANG", "C.UTF-8");

    List<String> inner = new ArrayList<>();
    inner.add("env");
    esEnv.forEach((k, v) -> inner.add(k + "=" + v));
    inner.addAll(List.of("/bin/sh", "-c", WATCHDOG_SCRIPT, "sextant-es-watchdog",
        esHome.resolve("bin/elasticsearch").toString(), "-p", pidFile.toString()));
    List<String> command = OsUser.runAsEsUser(inner);

    ProcessBuilder pb = new ProcessBuilder(command)
        .directory(instanceDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
    // Keep the test JVM's own Java/ES settings away from Elasticsearch.
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("ES_") || k.equals("JAVA_TOOL_OPTIONS") || k.equals("_JAVA_OPTIONS")
        || k.equals("JDK_JAVA_OPTIONS") || k.equals("JAVA_OPTS") || k.equals("JAVA_HOME"));
    env.putAll(esEnv);

    long t0 = System.nanoTime();
    LOG.info("Starting Elasticsearch {} on {}:{} (transport {}), instance {}, as {}", ELASTICSEARCH_VERSION, HOST,
        httpPort, transportPort, instanceDir, OsUser.isRoot() ? OsUser.esUserName() : "current user");
    try {
      launcher = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + command, e);
    }
    long deadline = t0 + startTimeout.toNanos();
    String lastHealth = "no answer";
    try {
      while (true) {
        if (!launcher.isAlive()) {
          throw new StartFailure("Elasticsearch exited with code " + launcher.exitValue() + " while starting",
              startTail(), null);
        }
        if (System.nanoTime() > deadline) {
          throw new StartFailure("Elasticsearch did not become healthy within " + startTimeout.toSeconds()
              + " s (last health answer: " + lastHealth + ")", startTail(), null);
        }
        Optional<String> health = health();
        if (health.isPresent()) {
          lastHealth = health.get();
          if (lastHealth.contains("\"status\":\"green\"") || lastHealth.contains("\"status\":\"yellow\"")) {
            break;
          }
        }
        Thread.sleep(250);
      }
      server = findServer(pidFile).orElse(null);
      lastStartDuration = Duration.ofNanos(System.nanoTime() - t0);
      long rss = residentSetSizeBytes();
      LOG.info("Elasticsearch {} up at {} in {} ms (server pid {}, RSS {} MB)", ELASTICSEARCH_VERSION, httpUrl(),
          lastStartDuration.toMillis(), server == null ? "?" : server.pid(), rss < 0 ? "?" : rss / (1024 * 1024));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      killQuietly();
      throw new IllegalStateException("Interrupted while starting Elasticsearch", e);
    } catch (RuntimeException e) {
      killQuietly();
      throw e;
    }
  }

  private String startTail() {
    return tail(instanceDir.resolve("logs/console.log"), consoleOffset, 80);
  }

  private void killQuietly() {
    try {
      terminate(launcher, findServer(instanceDir.resolve("es.pid")).orElse(null), Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      LOG.warn("Could not kill Elasticsearch", e);
    } finally {
      launcher = null;
      server = null;
    }
  }

  private Optional<String> health() {
    HttpRequest request = HttpRequest.newBuilder(
            URI.create("http://" + HOST + ":" + httpPort + "/_cluster/health?wait_for_status=yellow&timeout=1s"))
        .timeout(Duration.ofSeconds(5))
        .GET()
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return Optional.of(response.statusCode() + " " + response.body().replace(" ", ""));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }

  /** The server JVM: the pid Elasticsearch wrote, else the launcher's descendant running its main class. */
  private Optional<ProcessHandle> findServer(Path pidFile) {
    Process launcher = this.launcher;
    try {
      if (Files.isRegularFile(pidFile)) {
        Optional<ProcessHandle> h = ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()));
        if (h.isPresent()) {
          return h;
        }
      }
    } catch (IOException | NumberFormatException ignored) {
      // fall through
    }
    if (launcher == null) {
      return Optional.empty();
    }
    return launcher.descendants()
        .filter(p -> p.info().arguments().map(a -> Arrays.asList(a).contains(SERVER_MAIN_CLASS)).orElse(false)
            || p.info().commandLine().map(c -> c.contains(SERVER_MAIN_CLASS)).orElse(false))
        .findFirst();
  }

  /**
   * SIGTERM to the server JVM (Elasticsearch shuts down gracefully and the launcher follows), wait, then
   * SIGKILL everything left in the tree.
   */
  private static void terminate(Process launcher, ProcessHandle server, Duration timeout) {
    if (launcher == null) {
      return;
    }
    List<ProcessHandle> tree = new ArrayList<>(launcher.descendants().toList());
    if (server != null && !tree.contains(server)) {
      tree.add(server);
    }
    long t0 = System.nanoTime();
    if (server != null && server.isAlive()) {
      server.destroy();
    } else {
      // No server (yet): SIGTERM the launcher children so the Elasticsearch CLI shuts down what it started.
      tree.forEach(ProcessHandle::destroy);
    }
    try {
      boolean exited = launcher.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        LOG.warn("Elasticsearch did not stop within {} s; killing it", timeout.toSeconds());
        tree.forEach(ProcessHandle::destroyForcibly);
        launcher.destroyForcibly();
        launcher.waitFor(10, TimeUnit.SECONDS);
      }
      closeQuietly(launcher); // ends the watchdog's stdin watcher
      // The launcher is our child and exits last in the normal case; anything of the tree still alive
      // (not our children, so polled: ProcessHandle.onExit polls slowly for non-children) gets a moment, then SIGKILL.
      if (!awaitGone(tree, Duration.ofSeconds(5))) {
        tree.forEach(ProcessHandle::destroyForcibly);
        if (!awaitGone(tree, Duration.ofSeconds(10))) {
          LOG.warn("Elasticsearch processes survived SIGKILL: {}",
              tree.stream().filter(ProcessHandle::isAlive).toList());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tree.forEach(ProcessHandle::destroyForcibly);
      launcher.destroyForcibly();
    } finally {
      closeQuietly(launcher);
    }
    LOG.info("Elasticsearch stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
  }

  private static boolean awaitGone(List<ProcessHandle> processes, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (processes.stream().anyMatch(ElasticsearchExtension::isLive)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private static void closeQuietly(Process launcher) {
    try {
      launcher.getOutputStream().close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  /** Alive and not a zombie (an orphaned zombie waits for PID 1 to reap it, which may take seconds). */
  private static boolean isLive(ProcessHandle p) {
    if (!p.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
      String afterName = stat.substring(stat.lastIndexOf(')') + 1).trim();
      return !(afterName.startsWith("Z") || afterName.startsWith("X"));
    } catch (IOException | RuntimeException e) {
      return p.isAlive(); // no /proc, or gone meanwhile
    }
  }

  private void installShutdownHook() {
    if (shutdownHook != null) {
      return;
    }
    shutdownHook = new Thread(() -> {
      Process l = launcher; // no lock: the thread holding it may never return while the JVM exits
      ProcessHandle s = server;
      if (s == null) {
        s = findServer(instanceDir == null ? Path.of("/nonexistent") : instanceDir.resolve("es.pid")).orElse(null);
      }
      terminate(l, s, Duration.ofSeconds(15));
    }, "sextant-es-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  private void removeShutdownHook() {
    if (shutdownHook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or will run
    }
    shutdownHook = null;
  }

  private void deleteInstanceDir() {
    if (instanceDir == null || Boolean.getBoolean(KEEP_DATA_PROPERTY)) {
      return;
    }
    try {
      ElasticsearchDistribution.deleteRecursively(instanceDir);
    } catch (IOException e) {
      LOG.warn("Could not delete {}", instanceDir, e);
    }
  }

  /** The last {@code lines} lines of {@code file} from byte {@code offset} on. */
  static String tail(Path file, long offset, int lines) {
    try (SeekableByteChannel ch = Files.newByteChannel(file)) {
      long size = ch.size();
      long start = Math.max(offset, size - 256 * 1024);
      ch.position(start);
      try (InputStream in = java.nio.channels.Channels.newInputStream(ch)) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
      }
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
  static boolean isListening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(HOST, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
