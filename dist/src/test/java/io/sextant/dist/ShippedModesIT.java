package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.ClientFactory;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.tls.TestCertificates;
import io.sextant.testkit.tls.TestCertificates.Authority;
import io.sextant.testkit.tls.TestCertificates.Issued;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFReportProcessDownstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as shipped, started as a child process with nothing but environment variables, once
 * per mode the docs describe: it becomes ready, takes its traffic over real gRPC and answers it over
 * GraphQL. A mode added to the docs gets a test here.
 *
 * <p>Kubernetes is fabric8's mock API server (real HTTP, CRUD mode) found through a kubeconfig, as a
 * user's laptop finds a cluster; in the chart's mode the kubeconfig stands in for the service
 * account. Elasticsearch is the test kit's real server.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ShippedModesIT {
  static KubernetesClient client; // injected by the mock-server extension

  @RegisterExtension
  static final ElasticsearchExtension ES = new ElasticsearchExtension();

  private static final Duration READY = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PRODUCTPAGE_IP = "10.0.1.1";
  private static final String REVIEWS_IP = "10.0.1.2";
  private static final String REVIEWS_SERVICE_IP = "10.96.0.11";

  @TempDir
  static Path dir;

  private static Path home;
  private static Path kubeconfig;
  private static RunningSextant memory;
  private static Duration memoryReadyAfter;

  @BeforeAll
  static void unpackAndStartOnTheEmbeddedStore() throws Exception {
    Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
    home = ShippedTarball.unpack(unpacked);
    pod("productpage-v1-6b746f74dc-9stvs", "productpage", PRODUCTPAGE_IP);
    pod("reviews-v1-545db77b95-2ps7q", "reviews", REVIEWS_IP);
    client.resource(new ServiceBuilder().withNewMetadata().withNamespace("default").withName("reviews").endMetadata()
        .withNewSpec().withClusterIP(REVIEWS_SERVICE_IP).withSelector(Map.of("app", "reviews"))
        .addNewPort().withName("http").withPort(9080).endPort().endSpec().build()).create();
    kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
        contexts:
        - name: mock
          context:
            cluster: mock
            namespace: default
            user: tester
        current-context: mock
        users:
        - name: tester
          user:
            token: not-checked-by-the-mock
        """.formatted(client.getMasterUrl().toString().replaceAll("/$", "")));
    // The query warm-up at its largest budget: it may not hold readiness.
    long launched = System.nanoTime();
    memory = RunningSextant.start(home, Map.of("SEXTANT_QUERY_WARM_UP_SECONDS", "15"), READY);
    memoryReadyAfter = Duration.ofNanos(System.nanoTime() - launched);
  }

  /** Ready within 10 s of launch (about 4 s on two cores); the query warm-up runs after, never holding it. */
  @Test
  void readyWithinTenSecondsAndTheWarmUpRunsAfter() throws Exception {
    System.out.printf("embedded store: ready %d ms after launch%n", memoryReadyAfter.toMillis());
    assertThat(memoryReadyAfter).isLessThan(Duration.ofSeconds(10));
    String log = Poll.until("the warm-up logged", Duration.ofSeconds(60), () -> memory.process().output(),
        o -> o.contains("warmed up the query path: "));
    // The server logs that it started once it is ready, and only then starts the warm-up (on an empty
    // store it ends within a second, so whether /readyz answered first is a race this test cannot see).
    assertThat(log).contains(" started: gRPC receivers on ");
    assertThat(log.indexOf("warmed up the query path: ")).as("the warm-up logged after the start")
        .isGreaterThan(log.indexOf(" started: gRPC receivers on "));
    assertThat(log).as("the warm-up's rounds each a success").doesNotContain("answered with errors");
  }

  @AfterAll
  static void stop() throws Exception {
    if (memory != null) {
      memory.close();
    }
  }

  private static void pod(String name, String app, String ip) {
    client.resource(new PodBuilder()
        .withNewMetadata().withNamespace("default").withName(name).withLabels(Map.of("app", app)).endMetadata()
        .withNewSpec().withNodeName("node-1").addNewContainer().withName(app).withImage(app + ":1").endContainer()
        .endSpec()
        .withNewStatus().withPhase("Running").withPodIP(ip).endStatus().build()).create();
  }


  private static long thisMinute() {
    return System.currentTimeMillis() / 60_000 * 60_000 + 1000;
  }

  @Test
  void embeddedStoreTakesMeshTelemetry() throws Exception {
    long time = thisMinute();
    Clients c = memory.clients();
    assertThat(c.mesh("shipped-frontend", "shipped-backend", time, 7)).isEqualTo(Status.Code.OK);
    c.awaitServices("MESH", "shipped-backend");
    assertThat(c.value("service_cpm", "serviceName: \"shipped-backend\"", time)).isEqualTo("7");
  }

  /** A port already taken: the process exits naming it, instead of running on without serving. */
  @Test
  void aTakenPortEndsTheProcessWithTheReason() throws Exception {
    int taken = memory.clients().grpcPort();
    try (LaunchedDistribution second = LaunchedDistribution.start(home, Map.of("SEXTANT_SERVER_GRPC_PORT",
        String.valueOf(taken), "SEXTANT_SERVER_HTTP_PORT", RunningSextant.port(), "SEXTANT_QUERY_WARM_UP_SECONDS",
        "0"))) {
      assertThat(second.awaitExit(Duration.ofSeconds(60))).isEqualTo(1);
      assertThat(second.output()).contains("Sextant could not start: cannot listen on")
          .contains(":" + taken + " (server.grpcPort)").contains("Address already in use");
    }
  }

  @Test
  void asShippedTheDefaultAlarmRulesAreLoadedAndValid() throws Exception {
    awaitLogged(memory.process(), "alarms: 8 rules from " + home.resolve("config").resolve("alarm-settings.yml"));
  }

  @Test
  void asShippedGraphqlReadsAndRefusesAnonymousWritesNamingTheSetting() throws Exception {
    HttpResponse<String> r = post(memory, "mutation { addTemplate(setting: {configuration: \"{}\"}) { status } }",
        Map.of(), null);
    assertThat(r.body()).contains("addTemplate is a write and needs the editor role")
        .contains("auth.anonymous=editor");
    assertThat(memory.clients().graphql("query { version }").get("version").asText()).isNotBlank();
  }

  /** The secured mode of docs/security.md: a receiver token over TLS, users with roles, audited writes. */
  @Test
  void securedModeAsksEveryCallerWhoItIs() throws Exception {
    Authority ca = TestCertificates.authority("Sextant test CA");
    Issued certificate = ca.issue("sextant", dir);
    Path users = Files.writeString(dir.resolve("users.yaml"), "users:\n  - {name: alice, role: editor, password: \""
        + BCrypt.withDefaults().hashToString(10, "alice-pw".toCharArray()) + "\"}\n");
    Map<String, String> env = Map.of("SEXTANT_AUTH_RECEIVER_TOKENS", "mesh-token",
        "SEXTANT_AUTH_USERS_FILE", users.toString(), "SEXTANT_TLS_GRPC", "true",
        "SEXTANT_TLS_CERTIFICATE_FILE", certificate.certificateFile().toString(),
        "SEXTANT_TLS_KEY_FILE", certificate.keyFile().toString());
    try (RunningSextant secured = RunningSextant.start(home, env, READY);
        ClientFactory tls = ClientFactory.builder().tlsCustomizer(b -> b.trustManager(ca.certificate())).build()) {
      long time = thisMinute();
      assertThat(secured.clients().meshOver(tls, null, "secured-a", "secured-b", time, 3))
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(secured.clients().meshOver(tls, "mesh-token", "secured-a", "secured-b", time, 3))
          .isEqualTo(Status.Code.OK);
      assertThat(secured.clients().mesh("secured-a", "secured-b", time, 3)).as("plain text to a TLS port")
          .isNotEqualTo(Status.Code.OK);

      String write = "mutation add($s: NewDashboardSetting!) { addTemplate(setting: $s) { status message } }";
      Map<String, Object> template = Map.of("s", Map.of("configuration", JSON.writeValueAsString(Map.of(
          "name", "Secured", "layer", "MESH", "entity", "All", "isRoot", false, "children", List.of()))));
      assertThat(post(secured, write, template, null).statusCode()).isEqualTo(401);
      String alice = "Basic " + Base64.getEncoder().encodeToString("alice:alice-pw".getBytes(StandardCharsets.UTF_8));
      HttpResponse<String> written = post(secured, write, template, alice);
      assertThat(JSON.readTree(written.body()).at("/data/addTemplate/status").asBoolean()).as(written.body()).isTrue();
      awaitLogged(secured.process(), "write who=alice role=editor operation=addTemplate");

      // SkyWalking's UI container health-checks without credentials; its Settings page reads as GraphQL does.
      assertThat(get(secured, "/healthcheck", null).statusCode()).isEqualTo(200);
      assertThat(get(secured, "/status/cluster/nodes", null).statusCode()).isEqualTo(401);
      HttpResponse<String> nodes = get(secured, "/status/cluster/nodes", alice);
      assertThat(JSON.readTree(nodes.body()).at("/nodes/0/self").asBoolean()).as(nodes.body()).isTrue();
      HttpResponse<String> dump = get(secured, "/debugging/config/dump", alice);
      assertThat(JSON.readTree(dump.body()).get("auth.receiverTokens").asText()).isEqualTo("******");
      assertThat(dump.body()).doesNotContain("mesh-token");
    }
  }

  private static HttpResponse<String> get(RunningSextant sextant, String path, String authorization)
      throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + sextant.clients().httpPort() + path));
    if (authorization != null) {
      req.header("authorization", authorization);
    }
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(req.build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(RunningSextant sextant, String query, Map<String, Object> variables,
      String authorization) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + sextant.clients().httpPort() + "/graphql")).header("content-type", "application/json")
        .POST(BodyPublishers.ofString(JSON.writeValueAsString(Map.of("query", query, "variables", variables))));
    if (authorization != null) {
      req.header("authorization", authorization);
    }
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(req.build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void roverReceiverRegistersAReportedProcess() throws Exception {
    Clients c = memory.clients();
    EBPFReportProcessDownstream answer = c.roverProcess("rover-shipped", "GENERAL", "shipped-vm-app", "vm-1",
        "java", 4242);
    assertThat(answer.getProcessesCount()).isEqualTo(1);
    String id = answer.getProcesses(0).getProcessId();
    assertThat(id).isNotBlank();
    JsonNode process = c.graphql("{ getProcess(processId: \"" + id + "\") { id name serviceName instanceName } }")
        .get("getProcess");
    assertThat(process.get("name").asText()).isEqualTo("java");
    assertThat(process.get("serviceName").asText()).isEqualTo("shipped-vm-app");
    assertThat(process.get("instanceName").asText()).isEqualTo("vm-1");
  }

  @Test
  void eventsAreTakenAndListed() throws Exception {
    Clients c = memory.clients();
    String uuid = UUID.randomUUID().toString();
    long now = System.currentTimeMillis();
    assertThat(c.event(uuid, "shipped-orders", "Upgrade", now - 5_000, now)).isEqualTo(Status.Code.OK);
    JsonNode events = c.graphql("{ queryEvents(condition: {uuid: \"" + uuid
        + "\", paging: {pageNum: 1, pageSize: 10}}) { events { uuid name source { service } } } }")
        .get("queryEvents").get("events");
    assertThat(events).hasSize(1);
    assertThat(events.get(0).get("name").asText()).isEqualTo("Upgrade");
    assertThat(events.get(0).get("source").get("service").asText()).isEqualTo("shipped-orders");
  }

  /** Written through one process, read back by the next: the answer comes from Elasticsearch. */
  @Test
  void elasticsearchKeepsWhatOneProcessWroteForTheNext() throws Exception {
    Map<String, String> env = Map.of("SEXTANT_STORAGE", "elasticsearch", "SEXTANT_ES_HOSTS", ES.hostAndPort(),
        "SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX", "shipped");
    long time = thisMinute();
    try (RunningSextant first = RunningSextant.start(home, env, READY)) {
      assertThat(first.clients().mesh("es-frontend", "es-backend", time, 5)).isEqualTo(Status.Code.OK);
      assertThat(first.clients().value("service_cpm", "serviceName: \"es-backend\"", time)).isEqualTo("5");
    }
    try (RunningSextant second = RunningSextant.start(home, env, READY)) {
      second.clients().awaitServices("MESH", "es-backend");
      assertThat(second.clients().value("service_cpm", "serviceName: \"es-backend\"", time)).isEqualTo("5");
    }
  }

  /**
   * With the spool, nothing accepted is lost: a collector that lives through an outage longer than
   * its write queue holds (1 MB here) writes what went to disk once storage is back, and a
   * collector killed under load (SIGKILL, while Elasticsearch refused writes and with records not
   * yet collected) is taken over by its restart over the same volume. Each time the totals are
   * exactly what the clients sent and the collector counted as accepted, in minutes, hours and days.
   */
  @Test
  void withTheSpoolACollectorKilledUnderLoadLosesNothing() throws Exception {
    String prefix = "spooled";
    Map<String, String> env = Map.of("SEXTANT_STORAGE", "elasticsearch", "SEXTANT_ES_HOSTS", ES.hostAndPort(),
        "SEXTANT_STORAGE_ELASTICSEARCH_INDEX_PREFIX", prefix, "SEXTANT_CORE_TIMEZONE", "UTC",
        "SEXTANT_CORE_SPOOL_DIRECTORY", dir.resolve("spool").toString(), "SEXTANT_CORE_MAX_PENDING_MEGABYTES", "1",
        "SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", "1000", "SEXTANT_CORE_ROLLUP_INTERVAL_MILLIS", "3000");
    long from = System.currentTimeMillis();
    long backend = 0;
    long all = 0;
    double accepted;
    try (RunningSextant killed = RunningSextant.start(home, env, READY)) {
      backend += sendFor(killed.clients(), Duration.ofSeconds(4)); // written as it goes
      es("PUT", "/" + prefix + "-*/_settings", "{\"index.blocks.write\":true}");
      backend += sendFor(killed.clients(), Duration.ofSeconds(2));
      for (int burst = 0; burst < 4; burst++) { // more rows than the write queue's 1 MB
        assertThat(killed.clients().newServices("spool-new", burst * 500, 5, 100, System.currentTimeMillis()))
            .isEqualTo(Status.Code.OK);
        all += 500;
        Thread.sleep(1_000); // paces the bursts a second apart, as the scenario sends them
      }
      assertThat(killed.clients().metric("sextant_spool_overflow_rows")).as("rows kept on disk").isPositive();
      es("PUT", "/" + prefix + "-*/_settings", "{\"index.blocks.write\":null}");
      assertExactly(killed.clients(), prefix, from, backend, all + backend);
      assertThat(killed.clients().metric("sextant_flush_partials_dropped_total")).isZero();

      es("PUT", "/" + prefix + "-*/_settings", "{\"index.blocks.write\":true}");
      backend += sendFor(killed.clients(), Duration.ofSeconds(3)); // collected, not writable: waiting
      assertThat(killed.clients().mesh("spool-frontend", "spool-backend", System.currentTimeMillis(), 30))
          .isEqualTo(Status.Code.OK); // accepted, not yet collected
      backend += 30;
      accepted = killed.clients().metric("sextant_records_accepted_total");
      assertThat(killed.clients().metric("sextant_es_documents_blocked_total")).as("writes were refused").isPositive();
      killed.process().kill();
    }
    assertThat(accepted).as("what the killed collector counted as accepted").isEqualTo(all + backend);
    es("PUT", "/" + prefix + "-*/_settings", "{\"index.blocks.write\":null}");

    try (RunningSextant restarted = RunningSextant.start(home, env, READY)) {
      assertThat(restarted.process().output()).contains("Took over the spool of");
      assertExactly(restarted.clients(), prefix, from, backend, all + backend);
    }
  }

  /** Waits up to 30 s for GraphQL's spool-backend minutes and the stored hours and days of all services. */
  private static void assertExactly(Clients c, String prefix, long from, long backend, long all) throws Exception {
    long to = System.currentTimeMillis();
    try {
      Poll.until("the spool's calls all read back", Duration.ofSeconds(30), () -> minuteTotal(c, from, to) == backend
          && stored(prefix, "hour") == all && stored(prefix, "day") == all);
    } catch (AssertionError notYet) {
      // the assertions below say which figure is off
    }
    long minutes = minuteTotal(c, from, to);
    System.out.printf("spool: %d calls sent (%d to spool-backend); minutes of spool-backend %d (all stored minutes %d),"
        + " hours %d, days %d%n", all, backend, minutes, stored(prefix, "minute"), stored(prefix, "hour"),
        stored(prefix, "day"));
    assertThat(minutes).as("calls to spool-backend in the minutes, as GraphQL answers").isEqualTo(backend);
    assertThat(stored(prefix, "hour")).as("calls in the stored hour partials").isEqualTo(all);
    assertThat(stored(prefix, "day")).as("calls in the stored day partials").isEqualTo(all);
  }

  /** Streams of 50 calls to spool-backend for {@code duration}; returns how many were sent (each ended OK). */
  private static long sendFor(Clients c, Duration duration) throws Exception {
    long sent = 0;
    long end = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      assertThat(c.mesh("spool-frontend", "spool-backend", System.currentTimeMillis(), 50)).isEqualTo(Status.Code.OK);
      sent += 50;
      Thread.sleep(20); // paces the traffic for its duration
    }
    return sent;
  }

  private static long minuteTotal(Clients c, long from, long to) throws Exception {
    long sum = 0;
    for (JsonNode v : c.values("service_cpm", "serviceName: \"spool-backend\", normal: true", from, to)) {
      sum += v.get("value").isNull() ? 0 : v.get("value").asLong();
    }
    return sum;
  }

  /** Calls counted by the stored service_cpm partials of a step (read from Elasticsearch itself). */
  private static long stored(String prefix, String step) throws Exception {
    es("POST", "/" + prefix + "-*/_refresh", null);
    JsonNode hits = JSON.readTree(es("GET", "/" + prefix + "-metrics-"
        + step + "-*/_search?size=10000&q=metrics:service_cpm&filter_path=hits.hits._source.states.service_cpm", null));
    long sum = 0;
    for (JsonNode h : hits.path("hits").path("hits")) {
      sum += h.path("_source").path("states").path("service_cpm").path("v").path(0).asLong();
    }
    return sum;
  }

  private static String es(String method, String path, String body) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(ES.httpUrl() + path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isLessThan(300);
    return r.body();
  }

  @Test
  void accessLogsResolvedThroughTheKubernetesApi() throws Exception {
    Map<String, String> env = Map.of("SEXTANT_RECEIVER_ALS_KUBERNETES_ENABLED", "true",
        "KUBECONFIG", kubeconfig.toString());
    try (RunningSextant sextant = RunningSextant.start(home, env, READY)) {
      assertResolvedThroughKubernetes(sextant);
    }
  }

  /** The configuration helm renders with {@code als.kubernetes.enabled}, and nothing else. */
  @Test
  void chartRenderedConfigurationWithKubernetesMode() throws Exception {
    Helm helm = Helm.required();
    String grpc = RunningSextant.port();
    String http = RunningSextant.port();
    Manifests m = Manifests.parse(helm.template("memory-single.yaml", "als.kubernetes.enabled=true",
        "ports.grpc=" + grpc, "ports.http=" + http).rendered());
    Map<String, String> env = new HashMap<>(RenderedPod.environment(m, dir.resolve("chart-mounts"),
        "sextant-7c9d8b6f5-k2x9p"));
    assertThat(env).containsEntry("SEXTANT_RECEIVER_ALS_KUBERNETES_ENABLED", "true");
    env.put("KUBECONFIG", kubeconfig.toString()); // stands in for the service account the chart binds
    try (RunningSextant sextant = RunningSextant.start(home, env, READY)) {
      assertThat(sextant.process().output()).contains("(collector sextant-7c9d8b6f5-k2x9p)")
          .as("the chart's ConfigMap holds application.yml only: the image's rules apply")
          .contains("alarms: 8 rules from " + home.resolve("config").resolve("alarm-settings.yml"));
      assertResolvedThroughKubernetes(sextant);
    }
  }

  /**
   * productpage calls reviews three times through the reviews Service IP; both sidecars log it
   * without Istio's metadata, so only the Kubernetes API can name the services.
   */
  private static void assertResolvedThroughKubernetes(RunningSextant sextant) throws Exception {
    awaitLogged(sextant.process(), "Kubernetes pod informer synced; 2 pods cached");
    long time = thisMinute();
    List<io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry> outbound = List.of(
        Clients.accessLog(time, "outbound|9080||reviews.default.svc.cluster.local", PRODUCTPAGE_IP,
            REVIEWS_SERVICE_IP, REVIEWS_IP),
        Clients.accessLog(time + 1, "outbound|9080||reviews.default.svc.cluster.local", PRODUCTPAGE_IP,
            REVIEWS_SERVICE_IP, REVIEWS_IP),
        Clients.accessLog(time + 2, "outbound|9080||reviews.default.svc.cluster.local", PRODUCTPAGE_IP,
            REVIEWS_SERVICE_IP, REVIEWS_IP));
    List<io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry> inbound = List.of(
        Clients.accessLog(time, "inbound|9080||", PRODUCTPAGE_IP, REVIEWS_IP, REVIEWS_IP),
        Clients.accessLog(time + 1, "inbound|9080||", PRODUCTPAGE_IP, REVIEWS_IP, REVIEWS_IP),
        Clients.accessLog(time + 2, "inbound|9080||", PRODUCTPAGE_IP, REVIEWS_IP, REVIEWS_IP));
    Clients c = sextant.clients();
    assertThat(c.accessLogs("sidecar~" + PRODUCTPAGE_IP + "~productpage-v1-6b746f74dc-9stvs.default~x", outbound))
        .isEqualTo(Status.Code.OK);
    assertThat(c.accessLogs("sidecar~" + REVIEWS_IP + "~reviews-v1-545db77b95-2ps7q.default~x", inbound))
        .isEqualTo(Status.Code.OK);
    // The server side names the callee: listed. The caller is named by the relation, through its pod IP.
    assertThat(c.awaitServices("MESH", "reviews.default")).containsExactly("reviews.default");
    String relation = "serviceName: \"productpage.default\", destServiceName: \"reviews.default\"";
    assertThat(c.value("service_relation_client_cpm", relation, time)).isEqualTo("3");
    assertThat(c.value("service_relation_server_cpm", relation, time)).isEqualTo("3");
  }

  private static void awaitLogged(LaunchedDistribution process, String line) throws Exception {
    Poll.until("logged: " + line, Duration.ofSeconds(30), () -> process.output().contains(line));
  }
}
