package io.sextant.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import at.favre.lib.crypto.bcrypt.BCrypt;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.RequestHeadersBuilder;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.server.testing.UiGraphql;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Users, tokens and roles on the HTTP port, with the exact headers SkyWalking's tools send: swctl's
 * {@code --username/--password} (Basic) and {@code --authorization} (the value as given), and a
 * booster-ui server whose proxy forwards an {@code Authorization: Bearer} header.
 */
class GraphqlRolesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** booster-ui's own addTemplate request. */
  private static final String ADD = UiGraphql.ADD;
  private static final String MINE = "{\"name\":\"Mine\",\"layer\":\"MESH_DP\",\"entity\":\"ServiceInstance\","
      + "\"isRoot\":false,\"children\":[]}";
  private static final String READ = "query { version }";
  @TempDir
  static Path dir;
  @RegisterExtension
  static final SextantExtension SECURED = SextantExtension.perClass(() -> {
    String viewerToken = "grafana-token";
    Path users = Files.writeString(dir.resolve("users.yaml"), """
        users:
          - {name: alice, role: editor, password: "%s"}
          - {name: bob, role: viewer, password: "%s"}
        tokens:
          - {name: grafana, role: viewer, sha256: "%s"}
        """.formatted(hash("alice-pw"), hash("bob-pw"),
        HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
            .digest(viewerToken.getBytes(StandardCharsets.UTF_8)))));
    return Map.of("auth.anonymous", "auto", "auth.usersFile", users.toString(),
        "auth.editorTokens", "ui-proxy-token", "auth.metricsToken", "prometheus-token");
  });
  /** As shipped: nobody configured, anonymous callers read. */
  @RegisterExtension
  static final SextantExtension SHIPPED = SextantExtension.perClass(Map.of("auth.anonymous", "auto"));
  private static TestServer secured;
  private static TestServer shipped;
  private static final ListAppender<ILoggingEvent> AUDIT = new ListAppender<>();

  @BeforeAll
  static void start() {
    secured = SECURED.server();
    shipped = SHIPPED.server();
    Logger audit = (Logger) LoggerFactory.getLogger("sextant.audit");
    AUDIT.start();
    audit.addAppender(AUDIT);
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger("sextant.audit")).detachAppender(AUDIT);
  }

  @Test
  void eachPortListensOnItsOwnAddress() throws Exception {
    // 127.0.0.2 is a loopback address of its own on Linux: GraphQL there, receivers on 127.0.0.1.
    try (TestServer split = new TestServer(Map.of("server.httpHost", "127.0.0.2"))) {
      HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.2:" + split.httpPort + "/healthz"))
          .build();
      assertThat(TestServer.HTTP.send(health, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ok");
      assertThatThrownBy(() -> TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + split.httpPort + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(java.net.ConnectException.class);
      assertThat(split.stream(io.sextant.server.testing.Bookinfo.standard(System.currentTimeMillis()).messages(10))
          .getCode()).isEqualTo(io.grpc.Status.Code.OK);
    }
  }

  private static String hash(String password) {
    return BCrypt.withDefaults().hashToString(10, password.toCharArray());
  }

  @Test
  void asShippedAnonymousCallersReadAndEveryWriteIsRefusedNamingTheSetting() throws Exception {
    assertThat(post(shipped, READ, null).body()).contains("\"version\"");
    int templates = shipped.server.query().templates().all().size();
    for (String write : new String[] {"mutation { r: addTemplate(setting: {configuration: \"{}\"}) { status } }",
        "mutation { r: changeTemplate(setting: {id: \"x\", configuration: \"{}\"}) { status } }",
        "mutation { r: disableTemplate(id: \"x\") { status } }",
        "mutation { r: createEBPFProfilingFixedTimeTask(request: {serviceId: \"s\", processLabels: [],"
            + " startTime: 1, duration: 60, targetType: ON_CPU}) { status errorReason } }",
        "mutation { r: setContinuousProfilingPolicy(request: {serviceId: \"s\", targets: []}) { status } }"}) {
      HttpResponse<String> r = post(shipped, write, Map.of(), null);
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode errors = JSON.readTree(r.body()).path("errors");
      assertThat(errors.toString()).as(write).contains("needs the editor role")
          .contains("auth.anonymous=editor").contains("SEXTANT_AUTH_ANONYMOUS");
    }
    assertThat(shipped.server.query().templates().all()).as("nothing written").hasSize(templates);
  }

  @Test
  void swctlBasicUsersGetTheirRolesAndWrongPasswordsAre401() throws Exception {
    HttpResponse<String> anonymous = post(secured, READ, null);
    assertThat(anonymous.statusCode()).as("users configured: anonymous asks for credentials").isEqualTo(401);
    // A Bearer challenge only: a Basic one would make a browser keep a password for cross-site requests.
    assertThat(anonymous.headers().allValues("www-authenticate")).containsExactly("Bearer realm=\"sextant\"");
    assertThat(anonymous.body()).contains("asks for credentials");

    assertThat(post(secured, READ, basic("bob", "bob-pw")).body()).contains("\"version\"");
    assertThat(add(basic("bob", "bob-pw")).body()).contains("needs the editor role").contains("from bob (viewer)");

    JsonNode alice = JSON.readTree(add(basic("alice", "alice-pw")).body());
    assertThat(alice.at("/data/addTemplate/status").asBoolean()).as(alice.toString()).isTrue();
    String id = alice.at("/data/addTemplate/id").asText();
    assertThat(secured.server.query().templates().get(id)).isPresent();

    for (String[] wrong : new String[][] {{"alice", "bob-pw"}, {"nobody", "alice-pw"}}) {
      HttpResponse<String> r = post(secured, READ, basic(wrong[0], wrong[1]));
      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.body()).contains("unknown user or wrong password");
    }
    assertThat(AUDIT.list).extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(l -> l.contains("who=alice role=editor operation=addTemplate target=\"id=" + id + "\""
            + " outcome=done"))
        .anyMatch(l -> l.contains("who=bob role=viewer operation=addTemplate outcome=refused reason=role"))
        .noneMatch(l -> l.contains("alice-pw") || l.contains("bob-pw"));
    String metrics = secured.server.registry().scrape();
    assertThat(metrics).contains("sextant_graphql_writes_total{operation=\"addTemplate\",outcome=\"done\"}")
        .contains("sextant_graphql_refused_writes_total{operation=\"addTemplate\",reason=\"role\"}")
        .contains("sextant_http_unauthenticated_total{reason=\"wrong_password\"} 2.0");
  }

  @Test
  void tokensAsAUiProxyForwardsThemAndAsSwctlAuthorizationSendsThem() throws Exception {
    String proxied = add("Bearer ui-proxy-token").body();
    assertThat(JSON.readTree(proxied).at("/data/addTemplate/status").asBoolean()).as(proxied).isTrue();
    // swctl --authorization sends its value as given.
    assertThat(post(secured, READ, "ui-proxy-token").body()).contains("\"version\"");
    assertThat(post(secured, READ, "Bearer grafana-token").body()).contains("\"version\"");
    assertThat(add("Bearer grafana-token").body()).contains("needs the editor role");
    assertThat(post(secured, READ, "Bearer guessed").statusCode()).isEqualTo(401);
    String id = JSON.readTree(proxied).at("/data/addTemplate/id").asText();
    // Each token by its name: the users file's, or the setting a token came from.
    assertThat(AUDIT.list).extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(l -> l.contains("who=token:auth.editorTokens role=editor operation=addTemplate target=\"id=" + id))
        .anyMatch(l -> l.contains("who=token:grafana role=viewer operation=addTemplate outcome=refused reason=role"))
        .noneMatch(l -> l.contains("ui-proxy-token") || l.contains("grafana-token"));
  }

  /**
   * Cross-site request forgery as a hostile page would try it: alice's browser holds her Basic
   * credentials and is made to POST a write to Sextant as text/plain (no preflight) from another
   * site. Refused on both counts, nothing written; the query console and the UI's proxy, same-origin
   * and JSON, still write.
   */
  @Test
  void aBrowserWriteFromAnotherSiteIsRefusedAndSameOriginWritesStillRun() throws Exception {
    String alice = basic("alice", "alice-pw");
    String self = "http://127.0.0.1:" + secured.httpPort;
    String body = JSON.writeValueAsString(Map.of("query", ADD, "variables", Map.of("setting",
        Map.of("configuration", MINE))));
    int templates = secured.server.query().templates().all().size();
    AggregatedHttpResponse forged = browser(body, "text/plain;charset=UTF-8", alice, "https://evil.example",
        "cross-site");
    assertThat(forged.status().code()).isEqualTo(415);
    assertThat(forged.contentUtf8()).contains("takes Content-Type: application/json, not text/plain");
    AggregatedHttpResponse forgedJson = browser(body, "application/json", alice, "https://evil.example", "cross-site");
    assertThat(forgedJson.status().code()).isEqualTo(403);
    assertThat(forgedJson.contentUtf8()).contains("from another site (Sec-Fetch-Site: cross-site)");
    // An older browser without Fetch Metadata: the Origin against the Host.
    assertThat(browser(body, "application/json", alice, "https://evil.example", null).status().code())
        .isEqualTo(403);
    assertThat(browser(body, "application/json", alice, "null", null).status().code()).isEqualTo(403);
    assertThat(secured.server.query().templates().all()).as("nothing written").hasSize(templates);

    // The console at /, as the browser sends its requests, in a browser with and without Fetch Metadata.
    for (String site : new String[] {"same-origin", null}) {
      AggregatedHttpResponse console = browser(body, "application/json", alice, self, site);
      assertThat(console.status().code()).as(site).isEqualTo(200);
      assertThat(JSON.readTree(console.contentUtf8()).at("/data/addTemplate/status").asBoolean())
          .as(console.contentUtf8()).isTrue();
    }
    // The UI's proxy passes the browser's Origin on while it talks to Sextant's own address.
    AggregatedHttpResponse proxied = browser(body, "application/json; charset=utf-8", alice,
        "https://ui.example", "same-origin");
    assertThat(proxied.status().code()).as(proxied.contentUtf8()).isEqualTo(200);
    assertThat(secured.server.query().templates().all()).hasSize(templates + 3);
    assertThat(secured.server.registry().scrape())
        .contains("sextant_graphql_refused_requests_total{reason=\"content_type\"} 1.0")
        .contains("sextant_graphql_refused_requests_total{reason=\"cross_site\"} 3.0");
  }

  /** A POST to /graphql with the headers a browser adds; null leaves a header out. */
  private static AggregatedHttpResponse browser(String body, String contentType, String authorization, String origin,
      String fetchSite) {
    RequestHeadersBuilder h = RequestHeaders.builder(HttpMethod.POST, "/graphql")
        .contentType(MediaType.parse(contentType)).add("authorization", authorization).add("origin", origin);
    if (fetchSite != null) {
      h.add("sec-fetch-site", fetchSite).add("sec-fetch-mode", "same-origin".equals(fetchSite) ? "cors" : "no-cors");
    }
    return WebClient.of("h1c://127.0.0.1:" + secured.httpPort).execute(h.build(), body).aggregate().join();
  }

  @Test
  void probesStayOpenAndMetricsAskForTheirOwnToken() throws Exception {
    assertThat(get(secured, "/healthz", null).statusCode()).isEqualTo(200);
    assertThat(get(secured, "/readyz", null).statusCode()).isEqualTo(200);
    assertThat(get(secured, "/metrics", null).statusCode()).isEqualTo(401);
    assertThat(get(secured, "/metrics", basic("alice", "alice-pw")).statusCode()).isEqualTo(401);
    HttpResponse<String> scrape = get(secured, "/metrics", "Bearer prometheus-token");
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains("sextant_");
    assertThat(get(shipped, "/metrics", null).statusCode()).as("open unless a token is set").isEqualTo(200);
  }

  private static HttpResponse<String> add(String authorization) throws Exception {
    return post(secured, ADD, Map.of("setting", Map.of("configuration", MINE)), authorization);
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private static HttpResponse<String> post(TestServer server, String query, String authorization) throws Exception {
    return post(server, query, Map.of(), authorization);
  }

  private static HttpResponse<String> post(TestServer server, String query, Map<String, Object> variables,
      String authorization) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort + "/graphql"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("query", query,
            "variables", variables))));
    if (authorization != null) {
      req.header("authorization", authorization);
    }
    return TestServer.HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(TestServer server, String path, String authorization) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort + path));
    if (authorization != null) {
      req.header("authorization", authorization);
    }
    return TestServer.HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }
}
