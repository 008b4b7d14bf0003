package io.sextant.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import io.sextant.testkit.receiver.ClientStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/** A real Sextant on free local ports, with a real gRPC client and a real HTTP GraphQL client. */
public final class TestServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  // HTTP/1.1 as Prometheus and the UI's proxy speak it. The JDK client's h2c upgrade loses or
  // stalls on a large response sent right after the 101 (about 1 in 100 /metrics scrapes).
  public static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final HttpClient http = HTTP;
  public final SextantServer server;
  public final int grpcPort;
  public final int httpPort;

  public TestServer(Map<String, String> overrides) {
    grpcPort = FreePort.any();
    httpPort = FreePort.any();
    Map<String, String> all = new HashMap<>(Map.of(
        "server.host", "127.0.0.1",
        "server.grpcPort", String.valueOf(grpcPort),
        "server.httpPort", String.valueOf(httpPort),
        "core.timezone", "UTC",
        "core.collectorId", "test",
        "core.flushIntervalMillis", "200",
        "server.shutdownGraceSeconds", "0",
        "core.rollupIntervalMillis", "0"));
    all.put("server.drainReadinessSeconds", "0");
    // Feature tests write templates and profiling tasks anonymously, as on a laptop; who may write
    // by default is SecurityIT's subject.
    all.put("auth.anonymous", "editor");
    all.put("query.warmUpSeconds", "0"); // a core for its seconds after each start; QueryWarmUpTest runs it
    all.putAll(overrides);
    server = new SextantServer(SextantConfig.defaults().with(all)).start();
    // A start waits for the shipped dashboards a moment at most; tests read them at once.
    server.shippedTemplatesInstalled().orTimeout(60, TimeUnit.SECONDS).join();
  }


  /** Streams the messages on one mesh-telemetry client stream and returns the final gRPC status. */
  public Status stream(List<ServiceMeshMetrics> messages) throws Exception {
    ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub = GrpcClients
        .builder("http://127.0.0.1:" + grpcPort)
        .build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
    return clientStream(stub::collect, messages);
  }

  /** Sends messages on any client-streaming call, waits for its end and returns its status. */
  public static <Q, R> Status clientStream(Function<StreamObserver<R>, StreamObserver<Q>> call, List<Q> messages)
      throws Exception {
    return ClientStreams.send(call, messages);
  }

  /** POSTs a GraphQL query and returns the whole response ({@code data}, {@code errors}). */
  public JsonNode graphql(String query) throws Exception {
    return graphql(query, Map.of());
  }

  /** A request as the UI sends one: an operation and its variables. */
  public JsonNode graphql(String query, Map<String, Object> variables) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/graphql"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(
            JSON.writeValueAsString(Map.of("query", query, "variables", variables))))
        .build();
    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(res.body());
  }

  /** The {@code data} of a query that must not fail. */
  public JsonNode data(String query) throws Exception {
    return data(query, Map.of());
  }

  /** The data of a request with variables; errors fail the test. */
  public JsonNode data(String query, Map<String, Object> variables) throws Exception {
    JsonNode r = graphql(query, variables);
    if (r.has("errors") && !r.get("errors").isEmpty()) {
      throw new AssertionError("GraphQL errors: " + r.get("errors") + " for " + query);
    }
    return r.get("data");
  }

  public String get(String path) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Forces a flush now, as the periodic flusher would, so tests need not sleep. */
  public void flush() {
    server.flusher().flush(false); // on Elasticsearch this also refreshes (publish)
  }

  @Override
  public void close() {
    server.close();
  }
}
