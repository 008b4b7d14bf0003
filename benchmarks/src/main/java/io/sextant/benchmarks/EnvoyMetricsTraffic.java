package io.sextant.benchmarks;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsResponse;
import io.grpc.stub.StreamObserver;
import io.prometheus.client.Metrics;
import io.sextant.benchmarks.AlsTraffic.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Envoy's Metrics Service as Istio's proxies stream it (the MESH_DP layer): one stream per proxy of
 * the topology that logs HTTP ({@link AlsTraffic}), its first message naming the proxy's node, then
 * a snapshot of its statistics every {@code --interval} seconds (Envoy's stats flush interval):
 * memory, connections, worker threads, and per upstream cluster the healthy hosts, active and pending
 * requests and the request and connection counters, which grow with a steady rate. For trying UIs
 * by hand (scripts/horizon/check-horizon.sh), not a benchmark: nothing is verified.
 *
 * <p>{@code EnvoyMetricsTraffic --target=127.0.0.1:11800 [--duration=3600] [--interval=10]
 * [--topology=bookinfo]}
 */
public final class EnvoyMetricsTraffic {
  private EnvoyMetricsTraffic() {}

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = new Options(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    // LoadGenerator's defaults, so its access logs (--protocol=als) and these statistics name the same pods.
    AlsTraffic traffic = new AlsTraffic(MeshTopology.of(o.string("topology"), 10, 2, 50, 42));
    long intervalMillis = o.integer("interval") * 1000L;
    long end = System.currentTimeMillis() + o.integer("duration") * 1000L;
    MetricsServiceGrpc.MetricsServiceStub stub = GrpcClients.builder("http://" + o.string("target"))
        .build(MetricsServiceGrpc.MetricsServiceStub.class);
    List<Sidecar> sidecars = new ArrayList<>();
    for (Proxy p : traffic.proxies) {
      sidecars.add(new Sidecar(p, traffic.upstreamClusters(p), stub));
    }
    System.out.printf(Locale.ROOT, "Envoy metrics of %d proxies, a snapshot each every %d s%n", sidecars.size(),
        intervalMillis / 1000);
    for (long round = 0; System.currentTimeMillis() < end; round++) {
      long now = System.currentTimeMillis();
      for (Sidecar s : sidecars) {
        s.send(round, now);
      }
      Thread.sleep(Math.max(0, intervalMillis - (System.currentTimeMillis() - now)));
    }
    for (Sidecar s : sidecars) {
      s.close();
    }
  }

  /** One proxy's stream and the counters it reports. */
  private static final class Sidecar {
    private final Proxy proxy;
    private final List<String> clusters;
    private final MetricsServiceGrpc.MetricsServiceStub stub;
    private final SplittableRandom random;
    private final long[] requests;
    private final long[] connections;
    private StreamObserver<StreamMetricsMessage> stream;
    private CountDownLatch ended;

    Sidecar(Proxy proxy, List<String> clusters, MetricsServiceGrpc.MetricsServiceStub stub) {
      this.proxy = proxy;
      this.clusters = clusters;
      this.stub = stub;
      this.random = new SplittableRandom(proxy.instance.name.hashCode());
      this.requests = new long[clusters.size()];
      this.connections = new long[clusters.size()];
    }

    void send(long round, long now) {
      StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder();
      if (stream == null) {
        // A new stream (Envoy reconnects after an error) names its node again.
        CountDownLatch done = new CountDownLatch(1);
        ended = done;
        stream = stub.streamMetrics(new StreamObserver<StreamMetricsResponse>() {
          @Override
          public void onNext(StreamMetricsResponse value) {}

          @Override
          public void onError(Throwable t) {
            System.err.println(proxy.instance.name + ": stream ended: " + t);
            done.countDown();
          }

          @Override
          public void onCompleted() {
            done.countDown();
          }
        });
        m.setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(proxy.identifier.getNode()));
      }
      double wave = Math.sin(round / 30.0);
      m.addEnvoyMetrics(gauge("server.memory_heap_size", 48e6 + 8e6 * wave, now))
          .addEnvoyMetrics(gauge("server.memory_allocated", 31e6 + 5e6 * wave, now))
          .addEnvoyMetrics(gauge("server.memory_physical_size", 56e6 + 6e6 * wave, now))
          .addEnvoyMetrics(gauge("server.total_connections", 12 + random.nextInt(6), now))
          .addEnvoyMetrics(gauge("server.parent_connections", 0, now))
          .addEnvoyMetrics(gauge("server.concurrency", 2, now))
          .addEnvoyMetrics(gauge("server.envoy_bug_failures", 0, now));
      for (int c = 0; c < clusters.size(); c++) {
        String prefix = "cluster." + clusters.get(c) + ".";
        requests[c] += 50 + random.nextInt(20);
        connections[c] += random.nextInt(10) == 0 ? 1 : 0;
        m.addEnvoyMetrics(gauge(prefix + "membership_healthy", 1 + c % 3, now))
            .addEnvoyMetrics(gauge(prefix + "upstream_cx_active", 2 + random.nextInt(3), now))
            .addEnvoyMetrics(gauge(prefix + "upstream_rq_active", random.nextInt(5), now))
            .addEnvoyMetrics(gauge(prefix + "upstream_rq_pending_active", random.nextInt(10) == 0 ? 1 : 0, now))
            .addEnvoyMetrics(counter(prefix + "upstream_rq_total", requests[c], now))
            .addEnvoyMetrics(counter(prefix + "upstream_cx_total", 4 + connections[c], now))
            .addEnvoyMetrics(counter(prefix + "lb_healthy_panic", 0, now))
            .addEnvoyMetrics(counter(prefix + "upstream_cx_none_healthy", 0, now));
      }
      if (ended.getCount() == 0) {
        stream = null;
        return;
      }
      stream.onNext(m.build());
    }

    void close() throws InterruptedException {
      if (stream != null) {
        stream.onCompleted();
        ended.await(5, TimeUnit.SECONDS);
      }
    }
  }

  private static Metrics.MetricFamily gauge(String name, double v, long t) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.GAUGE)
        .addMetric(Metrics.Metric.newBuilder().setGauge(Metrics.Gauge.newBuilder().setValue(v)).setTimestampMs(t))
        .build();
  }

  private static Metrics.MetricFamily counter(String name, double v, long t) {
    return Metrics.MetricFamily.newBuilder().setName(name).setType(Metrics.MetricType.COUNTER)
        .addMetric(Metrics.Metric.newBuilder().setCounter(Metrics.Counter.newBuilder().setValue(v))
            .setTimestampMs(t)).build();
  }

  /** The tool's options. */
  private static final class Options extends CliOptions {
    Options(String[] args) {
      super("EnvoyMetricsTraffic");
      opt("target", "127.0.0.1:11800", "Sextant's gRPC address");
      opt("duration", "3600", "seconds to run");
      opt("interval", "10", "seconds between a proxy's snapshots (Envoy's stats flush interval)");
      opt("topology", "bookinfo", "bookinfo, or random (20 services)");
      apply(args);
    }

    @Override
    protected void validate() {
      if (integer("interval") < 1 || integer("duration") < 1) {
        throw new IllegalArgumentException("--interval and --duration are at least 1\n" + usage());
      }
    }
  }
}
