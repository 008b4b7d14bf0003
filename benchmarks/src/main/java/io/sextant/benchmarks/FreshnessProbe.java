package io.sextant.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/**
 * How long records take from being sent to being visible in GraphQL. Each probe sends {@code
 * --records} server-side HTTP call records for a service of its own ({@code <prefix>-<run>-<i>}),
 * all in the current minute, over one real gRPC {@code ServiceMeshMetricService/collect} stream,
 * then polls {@code execExpression(service_cpm)} for that service and minute until the answer is
 * exactly the number sent (a step MINUTE {@code service_cpm} is the minute's call count). The time
 * from the first record sent to the first exact answer is the probe's freshness; a larger count, or
 * no exact count within {@code --timeout}, fails the probe.
 *
 * <p>Probes start at random moments ({@code --interval-ms} apart on average, {@code --parallel} at
 * once) so they sample every phase of the server's flush and write cycles. It works alone or
 * beside other load (LoadGenerator, QueryLoad), against the memory or the Elasticsearch store.
 * Exit status: 0 if every probe became visible with the exact count, 1 if any did not, 2 on bad
 * options or an unreachable server.
 */
public final class FreshnessProbe {
  /** How long each probe call took: it started this long before it was sent. */
  private static final int CALL_MILLIS = 5;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXPRESSION_QUERY = "query probe($entity: Entity!, $duration: Duration!) {"
      + " result: execExpression(expression: \"service_cpm\", entity: $entity, duration: $duration) {"
      + " error results { values { id value } } } }";

  private final Options o;
  private final HttpClient http;
  private final URI graphql;
  private final ServiceMeshMetricServiceStub mesh;
  private final String runId = Long.toString(System.currentTimeMillis() / 1000 % 1_000_000, 36);
  private DateTimeFormatter minuteFormat;
  /** Server clock minus ours, from getTimeInfo (only when the clocks really differ). */
  private long clockSkewMillis;

  /** One probe's outcome: sent to visible in ms, or the reason it failed. */
  record Outcome(String service, long visibleMillis, int polls, String failure) {}

  private FreshnessProbe(Options o) {
    this.o = o;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    this.graphql = URI.create("http://" + o.string("http") + "/graphql");
    this.mesh = GrpcClients.builder("http://" + o.string("target"))
        .responseTimeoutMillis(30_000)
        .build(ServiceMeshMetricServiceStub.class);
  }

  public static void main(String[] args) throws Exception {
    System.exit(execute(args));
  }

  /** Runs with these options; the exit status. */
  static int execute(String... args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    return new FreshnessProbe(options).run();
  }

  private int run() throws Exception {
    System.out.println("Sextant freshness probe: " + o.summary());
    String setupError = setUp();
    if (setupError != null) {
      System.err.println(setupError);
      return 2;
    }
    int probes = o.integer("probes");
    int parallel = o.integer("parallel");
    ExecutorService pool = Executors.newFixedThreadPool(parallel, r -> {
      Thread t = new Thread(r, "freshness-probe");
      t.setDaemon(true);
      return t;
    });
    SplittableRandom rnd = new SplittableRandom(o.longValue("seed"));
    List<Future<Outcome>> futures = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < probes; i++) {
      if (i > 0) {
        // Exponential gaps: start moments independent of the server's cycles.
        long gap = (long) (-Math.log(1 - rnd.nextDouble()) * o.integer("interval-ms"));
        TimeUnit.MILLISECONDS.sleep(Math.min(gap, 10L * o.integer("interval-ms")));
      }
      String service = o.string("prefix") + "-" + runId + "-" + i;
      futures.add(pool.submit(() -> probe(service)));
    }
    Histogram millis = new Histogram(3);
    List<Outcome> failed = new ArrayList<>();
    for (Future<Outcome> f : futures) {
      Outcome out = f.get();
      if (out.failure() != null) {
        failed.add(out);
        System.out.println("probe " + out.service() + " FAILED: " + out.failure());
      } else {
        millis.recordValue(out.visibleMillis());
        if (o.bool("verbose")) {
          System.out.printf(Locale.ROOT, "probe %s visible after %,d ms (%d polls)%n", out.service(),
              out.visibleMillis(), out.polls());
        }
      }
    }
    pool.shutdownNow();
    System.out.println();
    System.out.printf(Locale.ROOT, "== freshness: %d probes of %d records over %.0f s, %d at once ==%n", probes,
        o.integer("records"), (System.nanoTime() - start) / 1e9, parallel);
    if (millis.getTotalCount() > 0) {
      System.out.printf(Locale.ROOT, "sent -> visible (exact count): p50 %s, p95 %s, p99 %s, max %s, min %s"
          + " (%d probes)%n", s(millis.getValueAtPercentile(50)), s(millis.getValueAtPercentile(95)),
          s(millis.getValueAtPercentile(99)), s(millis.getMaxValue()), s(millis.getMinValue()),
          millis.getTotalCount());
    }
    System.out.println(failed.isEmpty() ? "every probe became visible with the exact count"
        : failed.size() + " of " + probes + " probes failed");
    return failed.isEmpty() ? 0 : 1;
  }

  private static String s(long millis) {
    return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
  }

  /** Sends one probe's records and polls until they are all visible. */
  private Outcome probe(String service) {
    int records = o.integer("records");
    long sentAt = System.currentTimeMillis() + clockSkewMillis;
    long t0 = System.nanoTime();
    String sendError = send(service, sentAt, records);
    if (sendError != null) {
      return new Outcome(service, -1, 0, sendError);
    }
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("entity", Map.of("serviceName", service, "normal", true, "scope", "Service"));
    // Calls count in the minute they start: sent in the first milliseconds of a minute, they
    // started in the one before, where a window of the sending minute never sees them.
    String minute = minuteFormat.format(Instant.ofEpochMilli(sentAt - CALL_MILLIS));
    vars.put("duration", Map.of("start", minute, "end", minute, "step", "MINUTE"));
    long deadline = t0 + TimeUnit.SECONDS.toNanos(o.integer("timeout"));
    int polls = 0;
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      polls++;
      try {
        JsonNode r = call(EXPRESSION_QUERY, vars).path("result");
        if (r.hasNonNull("error")) {
          return new Outcome(service, -1, polls, "execExpression error: " + r.get("error").asText());
        }
        JsonNode value = r.path("results").path(0).path("values").path(0).path("value");
        if (!value.isMissingNode() && !value.isNull()) {
          double v = value.asDouble();
          if (v == records) {
            return new Outcome(service, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), polls, null);
          }
          if (v > records) {
            return new Outcome(service, -1, polls, "service_cpm " + value.asText() + " > " + records + " sent");
          }
          last = "service_cpm " + value.asText() + " of " + records;
        }
      } catch (IOException | IllegalStateException e) {
        last = "query failed: " + e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(service, -1, polls, "interrupted");
      }
      try {
        TimeUnit.MILLISECONDS.sleep(o.integer("poll-ms"));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(service, -1, polls, "interrupted");
      }
    }
    return new Outcome(service, -1, polls, "not visible within " + o.integer("timeout") + " s (" + last + ")");
  }

  /** One stream with the probe's records, completed; the reason it failed, or null once the server answered. */
  private String send(String service, long timeMillis, int records) {
    CompletableFuture<String> done = new CompletableFuture<>();
    StreamObserver<ServiceMeshMetrics> stream = mesh.collect(new StreamObserver<MeshProbeDownstream>() {
      @Override
      public void onNext(MeshProbeDownstream value) {}

      @Override
      public void onError(Throwable t) {
        done.complete("collect failed: " + t);
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    });
    HTTPServiceMeshMetrics.Builder batch = HTTPServiceMeshMetrics.newBuilder();
    for (int i = 0; i < records; i++) {
      // Server side only: one call each, counted once by the probe service's service_cpm.
      batch.addMetrics(HTTPServiceMeshMetric.newBuilder()
          .setStartTime(timeMillis - CALL_MILLIS).setEndTime(timeMillis)
          .setSourceServiceName(o.string("prefix") + "-client").setSourceServiceInstance("probe-client-0")
          .setDestServiceName(service).setDestServiceInstance(service + "-0")
          .setEndpoint("GET:/probe").setLatency(CALL_MILLIS).setResponseCode(200).setStatus(true)
          .setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server).setTlsMode("NONE"));
      if (batch.getMetricsCount() == 100 || i == records - 1) {
        stream.onNext(ServiceMeshMetrics.newBuilder().setHttpMetrics(batch).build());
        batch = HTTPServiceMeshMetrics.newBuilder();
      }
    }
    stream.onCompleted();
    try {
      return done.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return "collect did not finish: " + e;
    }
  }

  /** The server's zone and clock, from getTimeInfo; the reason it cannot be read, or null. */
  private String setUp() {
    JsonNode info;
    try {
      info = call("{ version getTimeInfo { timezone currentTimestamp } }", Map.of());
    } catch (IOException | InterruptedException | IllegalStateException e) {
      return "the GraphQL endpoint " + graphql + " failed (" + e.getMessage() + "); is the server running?";
    }
    JsonNode time = info.path("getTimeInfo");
    ZoneId zone = time.hasNonNull("timezone") ? ZoneOffset.of(time.get("timezone").asText()) : ZoneId.systemDefault();
    minuteFormat = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(zone);
    long skew = time.hasNonNull("currentTimestamp")
        ? time.get("currentTimestamp").asLong() - System.currentTimeMillis() : 0;
    clockSkewMillis = Math.abs(skew) > 1_000 ? skew : 0;
    System.out.printf(Locale.ROOT, "server %s (gRPC %s): version %s, time zone %s, clock %+d ms from ours%n",
        graphql, o.string("target"), info.path("version").asText("?"), zone, skew);
    return null;
  }

  /** A GraphQL request's data, or IllegalStateException with the server's first error. */
  private JsonNode call(String query, Map<String, Object> variables) throws IOException, InterruptedException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", query);
    body.put("variables", variables);
    HttpRequest req = HttpRequest.newBuilder(graphql).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
    HttpResponse<byte[]> res = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode root;
    try {
      root = JSON.readTree(res.body());
    } catch (IOException e) {
      throw new IllegalStateException("HTTP " + res.statusCode() + ", not JSON");
    }
    JsonNode errors = root.path("errors");
    if (res.statusCode() != 200 || (errors.isArray() && errors.size() > 0)) {
      throw new IllegalStateException("HTTP " + res.statusCode() + ": " + errors.path(0).path("message").asText(""));
    }
    return root.path("data");
  }

  /** FreshnessProbe's {@code --key=value} options. */
  static final class Options extends CliOptions {
    private Options() {
      super("FreshnessProbe");
      opt("target", "127.0.0.1:11800", "gRPC address of the server");
      opt("http", "127.0.0.1:12800", "HTTP address of the server (GraphQL at /graphql)");
      opt("probes", "30", "probes to run");
      opt("records", "100", "records per probe, all in one minute");
      opt("parallel", "3", "probes in flight at once");
      opt("interval-ms", "2000", "mean time between probe starts (exponential gaps)");
      opt("poll-ms", "100", "time between GraphQL polls of one probe");
      opt("timeout", "60", "seconds a probe may take to become visible before it fails");
      opt("prefix", "freshness-probe", "service name prefix of the probes (each probe has a service of its own)");
      opt("seed", "7", "seed of the probe start times");
      opt("verbose", "false", "print every probe's time");
    }

    static Options parse(String[] args) {
      Options o = new Options();
      o.apply(args);
      return o;
    }

    @Override
    protected void validate() {
      if (integer("probes") < 1 || integer("records") < 1 || integer("parallel") < 1 || integer("interval-ms") < 1
          || integer("poll-ms") < 1 || integer("timeout") < 1) {
        throw new IllegalArgumentException("probes, records, parallel, interval-ms, poll-ms and timeout must be at"
            + " least 1");
      }
      bool("verbose");
    }
  }
}
