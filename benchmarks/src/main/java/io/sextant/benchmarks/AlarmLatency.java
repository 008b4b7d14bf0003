package io.sextant.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import com.sun.net.httpserver.HttpServer;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;

/**
 * How long after the minute that breaks a rule its alarm reaches the webhook, as users meet it: a
 * running server (its settings file must point a rule at {@code --webhook-port}; see
 * run-alarm-latency.sh), {@code --services} healthy services and one slow one sending every second,
 * live. Each webhook call is timed from the end of the last minute of the window that fired it (the
 * snapshot's last point) to its arrival. Also prints the server's own cost of evaluating every rule
 * each minute ({@code sextant_alarm_evaluation_seconds}). Exit 1 if no alarm arrived.
 */
public final class AlarmLatency {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter BUCKET = DateTimeFormatter.ofPattern("yyyyMMddHHmm");
  private static final Pattern EVALUATION = Pattern.compile(
      "(?m)^sextant_alarm_evaluation_seconds_(count|sum|max)(?:\\{[^}]*})? (\\S+)");

  private AlarmLatency() {}

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(run(o));
  }

  private static int run(Options o) throws Exception {
    List<long[]> arrivals = new CopyOnWriteArrayList<>(); // {arrival millis, minute end millis}
    HttpServer webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", o.integer("webhook-port")), 0);
    webhook.createContext("/", exchange -> {
      long now = System.currentTimeMillis();
      JsonNode list = JSON.readTree(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      for (JsonNode m : list) {
        JsonNode series = JSON.readTree(m.path("mqeMetricsSnapshot").path("service_resp_time").asText("[]"));
        JsonNode values = series.path(0).path("values");
        if (values.size() > 0) {
          String last = values.get(values.size() - 1).path("id").asText();
          long end = LocalDateTime.parse(last, BUCKET).plusMinutes(1).toInstant(ZoneOffset.UTC).toEpochMilli();
          arrivals.add(new long[] {now, end});
          System.out.printf(Locale.ROOT, "alarm %s for minute %s: %.1f s after the minute ended%n",
              m.path("ruleName").asText(), last, (now - end) / 1000.0);
        }
      }
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    webhook.start();
    ServiceMeshMetricServiceStub stub = GrpcClients.builder("http://" + o.string("target"))
        .build(ServiceMeshMetricServiceStub.class);
    int services = o.integer("services");
    System.out.printf("alarm latency: %d healthy services and one slow, %d minutes%n", services,
        o.integer("minutes"));
    long until = System.currentTimeMillis() + o.integer("minutes") * 60_000L;
    while (System.currentTimeMillis() < until) {
      long t = System.currentTimeMillis();
      HTTPServiceMeshMetrics.Builder calls = HTTPServiceMeshMetrics.newBuilder();
      calls.addMetrics(call(t, "alarm-slow", 1500));
      for (int i = 0; i < services; i++) {
        calls.addMetrics(call(t, "alarm-healthy-" + i, 20));
      }
      send(stub, ServiceMeshMetrics.newBuilder().setHttpMetrics(calls).build());
      Thread.sleep(Math.max(0, 1000 - (System.currentTimeMillis() - t)));
    }
    Thread.sleep(o.integer("drain-seconds") * 1000L);
    webhook.stop(0);

    Histogram delays = new Histogram(3);
    List<Long> seconds = new ArrayList<>();
    for (long[] a : arrivals) {
      delays.recordValue(Math.max(0, a[0] - a[1]));
      seconds.add((a[0] - a[1]) / 1000);
    }
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + o.string("http")
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    double count = 0;
    double sum = 0;
    double max = 0;
    Matcher m = EVALUATION.matcher(metrics);
    while (m.find()) {
      double v = Double.parseDouble(m.group(2));
      switch (m.group(1)) {
        case "count" -> count = v;
        case "sum" -> sum = v;
        default -> max = v;
      }
    }
    System.out.printf(Locale.ROOT, "alarms: %d; delay after the minute's end (s): p50 %.1f, max %.1f; all %s%n",
        arrivals.size(), delays.getValueAtPercentile(50) / 1000.0, delays.getMaxValue() / 1000.0, seconds);
    System.out.printf(Locale.ROOT, "server: %d evaluations of every rule, mean %.1f ms, max %.1f ms%n",
        (long) count, count == 0 ? 0 : sum / count * 1000, max * 1000);
    return arrivals.isEmpty() ? 1 : 0;
  }

  /** One stream with one message, completed; waits for the server's answer. */
  private static void send(ServiceMeshMetricServiceStub stub, ServiceMeshMetrics message) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<ServiceMeshMetrics> stream = stub.collect(new StreamObserver<MeshProbeDownstream>() {
      @Override
      public void onNext(MeshProbeDownstream value) {}

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    });
    stream.onNext(message);
    stream.onCompleted();
    done.get(30, TimeUnit.SECONDS);
  }

  private static HTTPServiceMeshMetric call(long t, String service, int latency) {
    return HTTPServiceMeshMetric.newBuilder().setStartTime(t).setEndTime(t + latency).setLatency(latency)
        .setSourceServiceName("alarm-client").setSourceServiceInstance("alarm-client-1")
        .setDestServiceName(service).setDestServiceInstance(service + "-1").setEndpoint("GET:/")
        .setResponseCode(200).setStatus(true).setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server)
        .setTlsMode("NONE").build();
  }

  /** AlarmLatency's {@code --key=value} options. */
  static final class Options extends CliOptions {
    private Options() {
      super("AlarmLatency");
      opt("target", "127.0.0.1:11800", "gRPC address of the server");
      opt("http", "127.0.0.1:12800", "HTTP address of the server (/metrics)");
      opt("webhook-port", "18999", "port of the webhook the server's settings call");
      opt("services", "200", "healthy services sending beside the slow one");
      opt("minutes", "5", "minutes of traffic");
      opt("drain-seconds", "120", "seconds to wait for the last alarms after the traffic");
    }

    static Options parse(String[] args) {
      Options o = new Options();
      o.apply(args);
      return o;
    }

    @Override
    protected void validate() {
      if (integer("services") < 0 || integer("minutes") < 1 || integer("drain-seconds") < 0) {
        throw new IllegalArgumentException("services must be 0 or more, minutes at least 1");
      }
    }
  }
}
