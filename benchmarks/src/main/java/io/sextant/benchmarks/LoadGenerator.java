package io.sextant.benchmarks;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.client.grpc.GrpcClients;
import com.sun.management.OperatingSystemMXBean;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc.AccessLogServiceStub;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsResponse;
import io.sextant.benchmarks.ServerStats.Scrape;
import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogDownstream;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub;
import org.apache.skywalking.apm.network.servicemesh.v3.MeshProbeDownstream;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams realistic service-mesh telemetry over real gRPC to a Sextant server, reports throughput
 * as seen by both sides every few seconds, and at the end checks that the server accounted for
 * everything sent. Three protocols ({@code --protocol}):
 *
 * <ul>
 *   <li>{@code mesh} (default): SkyWalking's {@code skywalking.v3.ServiceMeshMetricService/collect},
 *       both sides of every call as records; verified against the receiver's and the aggregator's
 *       accepted counts.
 *   <li>{@code als}: Envoy's {@code envoy.service.accesslog.v3.AccessLogService/StreamAccessLogs} as
 *       Istio proxies send it; each stream is one proxy of the topology (see {@link AlsTraffic}), its
 *       first message carries the proxy's identifier, {@code --batch} entries per message. Verified
 *       against {@code sextant_als_entries_total{kind="http"}} (every entry received), {@code
 *       sextant_als_entries_dropped_total} (none dropped) and the aggregator's {@code
 *       sextant_records_accepted_total{kind="call"}} (one call record per entry, two per gateway
 *       outbound entry).
 *   <li>{@code rover}: SkyWalking Rover's {@code skywalking.v3.EBPFAccessLogService/collect}; each
 *       stream is the Rover of one node (see {@link RoverTraffic}), its first message carries the
 *       node, each connection's first message the connection, then one message per HTTP exchange
 *       with {@code --batch} kernel logs (at least 2). Every kernel and HTTP log is a record;
 *       verified against the receiver's ({@code receiver="ebpf_access_log"}) and the aggregator's
 *       ({@code kind="kernel"}) accepted counts.
 * </ul>
 *
 * <p>Run with {@code --help} for the options. Exit status: 0 on success, 1 if the server did not
 * account for everything sent (with {@code --verify=true}), 2 on bad options or an unreachable
 * server.
 */
public final class LoadGenerator {
  private final LoadOptions o;
  private final List<StreamSender<?>> senders = new ArrayList<>();
  private final List<ClientFactory> factories = new ArrayList<>();
  /** mesh: one pool all streams send from. */
  private volatile MessagePool<ServiceMeshMetrics> pool;
  /** als: one pool per stream, since each stream is a different proxy. */
  private volatile List<MessagePool<StreamAccessLogsMessage>> alsPools;
  /** rover: one pool per stream, since each stream is a different node. */
  private volatile List<MessagePool<EBPFAccessLogMessage>> roverPools;
  private final boolean als;
  private final boolean rover;
  /** The receiver tag the server counts this protocol's records under (mesh, rover). */
  private final String receiver;
  private final AtomicLong poolBuilds = new AtomicLong();
  private final AtomicLong poolBuildNanos = new AtomicLong();
  private long serverPid;
  private long peakRss = -1;
  private boolean inprocess;

  private LoadGenerator(LoadOptions o) {
    this.o = o;
    this.als = o.als();
    this.rover = o.rover();
    this.receiver = rover ? "ebpf_access_log" : "mesh";
  }

  public static void main(String[] args) throws Exception {
    System.exit(execute(args));
  }

  /** Runs with these options; the exit status. */
  static int execute(String... args) throws Exception {
    LoadOptions options;
    try {
      options = LoadOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    // A stream the server ends is counted and reported by the generator; Armeria's client would
    // also log a stack trace for each one.
    Logger armeriaClient = LoggerFactory.getLogger("com.linecorp.armeria.client");
    if (armeriaClient instanceof ch.qos.logback.classic.Logger l) {
      l.setLevel(ch.qos.logback.classic.Level.ERROR);
    }
    return new LoadGenerator(options).run();
  }

  private int run() throws Exception {
    String target = o.string("target");
    String httpAddress = o.string("http");
    serverPid = o.serverPid();
    SextantServer server = null;
    inprocess = o.bool("inprocess");
    if (inprocess) {
      int grpcPort = FreePort.any();
      int httpPort = FreePort.any();
      server = new SextantServer(SextantConfig.defaults().with(Map.of("query.warmUpSeconds", "0",
          "server.host", "127.0.0.1",
          "server.grpcPort", String.valueOf(grpcPort),
          "server.httpPort", String.valueOf(httpPort),
          "core.collectorId", "loadgen-inprocess"))).start();
      target = "127.0.0.1:" + grpcPort;
      httpAddress = "127.0.0.1:" + httpPort;
      serverPid = ProcessHandle.current().pid();
    }
    try {
      return drive(target, httpAddress);
    } finally {
      if (server != null) {
        long t = System.nanoTime();
        server.close();
        System.out.printf(Locale.ROOT, "in-process server closed (final flush included) in %.0f ms%n",
            (System.nanoTime() - t) / 1e6);
      }
    }
  }

  private int drive(String target, String httpAddress) throws Exception {
    MeshTopology topology = MeshTopology.of(o.string("topology"), o.integer("services"),
        o.integer("instances-per-service"), o.integer("endpoints"), o.longValue("seed"));
    ServerStats stats = new ServerStats(httpAddress);
    Scrape base = stats.tryScrape();
    if (base == null) {
      System.err.println("the server's /metrics at " + httpAddress + " is not reachable; is the server running?");
      return 2;
    }
    long rate = o.longValue("rate");
    int streams = o.integer("streams");
    int batch = o.integer("batch");
    int durationSeconds = o.integer("duration");
    // A pool need not be larger than two seconds' worth of a paced run.
    int poolRecords = rate > 0 ? (int) Math.max(2L * batch, Math.min(o.integer("pool"), 2 * rate))
        : Math.max(o.integer("pool"), 2 * batch);

    System.out.println("Sextant load generator: " + o.summary());
    System.out.println("target " + target + (inprocess ? " (in-process server)" : "") + ", metrics http://"
        + httpAddress + "/metrics" + (serverPid > 0 ? ", server pid " + serverPid : ""));
    System.out.println("topology " + topology.describe());
    int backfill = o.integer("backfill-minutes");
    long runStart = System.currentTimeMillis();
    long backfillLag = 0;
    if (backfill > 0 && o.longValue("backfill-end") > 0) {
      backfillLag = runStart + durationSeconds * 1000L - o.longValue("backfill-end");
      if (backfillLag < 0 || backfillLag / 60_000 + backfill > 1439) {
        System.err.println("--backfill-end must be before the end of this run and the replayed minutes within the"
            + " last 1439 minutes (core.maxLateMinutes); it is " + backfillLag / 1000 + " s before the run's end");
        return 2;
      }
    }
    if (backfill > 0) {
      System.out.println("backfill: replaying " + backfill + " minutes in order over the run, from "
          + (backfill - 1) + " minutes back to " + (backfillLag == 0 ? "now"
              : "--backfill-end (" + java.time.Instant.ofEpochMilli(o.longValue("backfill-end")) + ")"));
    }

    Runnable rebuild;
    List<AlsTraffic.Stream> alsStreams = new ArrayList<>();
    List<RoverTraffic.Stream> roverStreams = new ArrayList<>();
    if (rover) {
      RoverTraffic traffic = new RoverTraffic(topology, runStart);
      System.out.println("nodes    " + traffic.describe(streams));
      for (int i = 0; i < Math.min(streams, 4); i++) {
        System.out.println("         stream " + i + ": " + traffic.nodeFor(i).describe());
      }
      if (streams > 4) {
        System.out.println("         ...");
      }
      if (batch < 2) {
        System.out.println("note: an HTTP exchange takes at least a write and a read; sending 2 kernel logs per"
            + " exchange (--batch=2)");
      }
      for (int i = 0; i < streams; i++) {
        roverStreams.add(traffic.stream(i, o.ratio("error-ratio"), o.longValue("seed"))
            .backfill(backfill, runStart, durationSeconds * 1000L));
      }
      int perStream = Math.max(2 * batch, (poolRecords + streams - 1) / streams);
      rebuild = () -> rebuildRoverPools(roverStreams, perStream, batch);
    } else if (als) {
      AlsTraffic traffic = new AlsTraffic(topology);
      System.out.println("proxies  " + traffic.describe(streams));
      for (int i = 0; i < Math.min(streams, 4); i++) {
        System.out.println("         stream " + i + ": " + traffic.proxyFor(i).describe());
      }
      if (streams > 4) {
        System.out.println("         ...");
      }
      if (batch == 1) {
        System.out.println(
            "note: Envoy flushes several access-log entries per message; --batch=10 is closer to a real proxy");
      }
      for (int i = 0; i < streams; i++) {
        alsStreams.add(traffic.stream(i, o.ratio("error-ratio"), o.longValue("seed"))
            .backfill(backfill, runStart, durationSeconds * 1000L));
      }
      int perStream = Math.max(2 * batch, (poolRecords + streams - 1) / streams);
      rebuild = () -> rebuildAlsPools(alsStreams, perStream, batch);
    } else {
      CallSampler sampler = new CallSampler(topology, o.ratio("tcp-ratio"), o.ratio("error-ratio"), o.longValue("seed"))
          .backfill(backfill, runStart, durationSeconds * 1000L, backfillLag);
      rebuild = () -> rebuildPool(sampler, poolRecords, batch);
    }
    rebuild.run();
    if (rover ? roverPools == null : als ? alsPools == null : pool == null) {
      return 2;
    }
    ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loadgen-pool");
      t.setDaemon(true);
      return t;
    });
    // Runs until the refresher is shut down; nothing waits on it, so its future is not kept.
    Future<?> unused = refresher.scheduleWithFixedDelay(rebuild, 1, 1, TimeUnit.SECONDS);

    // As sidecars resolving a headless Service: after a restart, streams come back once it is ready.
    BooleanSupplier mayConnect = () -> true;
    if (o.bool("connect-when-ready")) {
      mayConnect = new RestartWatch(httpAddress, () -> System.out.println("the server is ready again: reconnecting"))
          .start()::ready;
    }
    ClientFactory shared = null;
    for (int i = 0; i < streams; i++) {
      ClientFactory factory;
      if (o.bool("connection-per-stream") || shared == null) {
        factory = clientFactory(o.string("tls-ca"));
        factories.add(factory);
        shared = factory;
      } else {
        factory = shared;
      }
      double perStreamRate = rate > 0 ? (double) rate / streams : 0;
      boolean stub = o.string("client").equals("stub");
      if (rover) {
        ClientStream.Opener<EBPFAccessLogMessage> opener = stub
            ? StubClientStream.<EBPFAccessLogMessage, EBPFAccessLogDownstream>opener(
                grpcClient(target, factory, EBPFAccessLogServiceStub.class)::collect)
            : ChunkedClientStream.opener(webClient(target, factory, o.string("token")),
                EBPFAccessLogServiceGrpc.getCollectMethod().getFullMethodName());
        int index = i;
        senders.add(new StreamSender<>(i, opener, roverStreams.get(i)::withNode, () -> roverPools.get(index),
            perStreamRate, o.integer("window"), o.longValue("rotate-bytes"), mayConnect));
      } else if (als) {
        ClientStream.Opener<StreamAccessLogsMessage> opener = stub
            ? StubClientStream.<StreamAccessLogsMessage, StreamAccessLogsResponse>opener(
                grpcClient(target, factory, AccessLogServiceStub.class)::streamAccessLogs)
            : ChunkedClientStream.opener(webClient(target, factory, o.string("token")),
                AccessLogServiceGrpc.getStreamAccessLogsMethod().getFullMethodName());
        int index = i;
        senders.add(new StreamSender<>(i, opener, alsStreams.get(i)::withIdentifier, () -> alsPools.get(index),
            perStreamRate, o.integer("window"), o.longValue("rotate-bytes"), mayConnect));
      } else {
        ClientStream.Opener<ServiceMeshMetrics> opener = stub
            ? StubClientStream.<ServiceMeshMetrics, MeshProbeDownstream>opener(
                grpcClient(target, factory, ServiceMeshMetricServiceStub.class)::collect)
            : ChunkedClientStream.opener(webClient(target, factory, o.string("token")),
                ServiceMeshMetricServiceGrpc.getCollectMethod().getFullMethodName());
        senders.add(new StreamSender<>(i, opener, null, () -> pool, perStreamRate, o.integer("window"),
            o.longValue("rotate-bytes"), mayConnect));
      }
    }

    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuStart = os.getProcessCpuTime();
    long serverCpuStart = inprocess ? -1 : ServerStats.cpuNanos(serverPid);
    long start = System.nanoTime();
    senders.forEach(StreamSender::start);

    int reportEvery = o.integer("report");
    Scrape lastScrape = base;
    long lastSent = 0;
    long lastMessages = 0;
    long lastReport = start;
    for (int second = 1; second <= durationSeconds; second++) {
      long wake = start + second * 1_000_000_000L;
      long now;
      while ((now = System.nanoTime()) < wake) {
        TimeUnit.NANOSECONDS.sleep(wake - now);
      }
      sampleRss();
      if (second % reportEvery == 0 || second == durationSeconds) {
        Scrape s = stats.tryScrape();
        long sent = sentRecords();
        long msgs = sentMessages();
        double secs = (now - lastReport) / 1e9;
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
            "[%4ds] sent %,10.0f %s %,10.0f msg/s", second, (sent - lastSent) / secs, als ? "entries/s" : "rec/s",
            (msgs - lastMessages) / secs));
        if (als && s != null && lastScrape != null) {
          line.append(String.format(Locale.ROOT, " | server received %,10.0f entries/s, accepted %,10.0f call rec/s,"
              + " dropped %,d", (s.alsHttpEntries() - lastScrape.alsHttpEntries()) / secs,
              (s.aggregatorCalls() - lastScrape.aggregatorCalls()) / secs, s.alsDropped() - base.alsDropped()));
          line.append(String.format(Locale.ROOT, " | lag %,d", sent - (s.alsHttpEntries() - base.alsHttpEntries())));
        } else if (s != null && lastScrape != null) {
          line.append(String.format(Locale.ROOT, " | server accepted %,10.0f rec/s (aggregator %,10.0f), rejected %,d",
              (s.receiverAccepted(receiver) - lastScrape.receiverAccepted(receiver)) / secs,
              (aggregated(s) - aggregated(lastScrape)) / secs,
              s.receiverRejected(receiver) - base.receiverRejected(receiver)));
          line.append(String.format(Locale.ROOT, " | lag %,d",
              sent - (s.receiverAccepted(receiver) - base.receiverAccepted(receiver))));
        }
        line.append(rssText());
        long failed = senders.stream().mapToLong(x -> x.streamsFailed.get()).sum();
        if (failed > 0) {
          line.append(" | stream failures ").append(failed);
        }
        System.out.println(line);
        lastScrape = s != null ? s : lastScrape;
        lastSent = sent;
        lastMessages = msgs;
        lastReport = now;
      }
    }
    for (StreamSender s : senders) {
      s.stopAndJoin();
    }
    long sendNanos = System.nanoTime() - start;
    long cpuUsed = os.getProcessCpuTime() - cpuStart;
    long serverCpu = inprocess || serverCpuStart < 0 ? -1 : ServerStats.cpuNanos(serverPid) - serverCpuStart;
    refresher.shutdownNow();
    long sent = sentRecords();
    long msgs = sentMessages();

    // Everything sent has been answered by now; give the server's counters a moment to catch up.
    long deadline = System.nanoTime() + 10_000_000_000L;
    long derived = senders.stream().mapToLong(s -> s.derived.get()).sum();
    Scrape end = stats.tryScrape();
    while (end != null && !settled(end, base, sent, derived) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      sampleRss();
      Scrape next = stats.tryScrape();
      end = next != null ? next : end;
    }
    sampleRss();
    boolean ok = report(end, base, sent, derived, msgs, sendNanos, cpuUsed, serverCpu);
    factories.forEach(ClientFactory::close);
    return !o.bool("verify") || ok ? 0 : 1;
  }

  /** Plain text, or TLS trusting the CA in {@code caFile} (PEM). */
  private static ClientFactory clientFactory(String caFile) {
    return caFile.isEmpty() ? ClientFactory.builder().build()
        : ClientFactory.builder().tlsCustomizer(b -> b.trustManager(new java.io.File(caFile))).build();
  }

  private <T> T grpcClient(String target, ClientFactory factory, Class<T> stubType) {
    var builder = GrpcClients.builder(scheme() + target);
    if (!o.string("token").isEmpty()) {
      builder.addHeader("authentication", o.string("token"));
    }
    return builder.factory(factory)
        .responseTimeoutMillis(0) // a sidecar's stream has no deadline
        .build(stubType);
  }

  private String scheme() {
    return o.string("tls-ca").isEmpty() ? "http://" : "https://";
  }

  private WebClient webClient(String target, ClientFactory factory, String token) {
    var builder = WebClient.builder(scheme() + target);
    if (!token.isEmpty()) {
      builder.addHeader("authentication", token);
    }
    return builder.factory(factory)
        .responseTimeoutMillis(0) // a sidecar's stream has no deadline
        .maxResponseLength(0)
        .build();
  }

  /** Whether the server's counters account for everything sent (or for why not). */
  private boolean settled(Scrape end, Scrape base, long sent, long derived) {
    if (als) {
      long received = end.alsHttpEntries() - base.alsHttpEntries();
      long dropped = end.alsDropped() - base.alsDropped();
      return received >= sent && (dropped > 0 || end.aggregatorCalls() - base.aggregatorCalls() >= derived);
    }
    return end.receiverAccepted(receiver) - base.receiverAccepted(receiver)
        + (end.receiverRejected(receiver) - base.receiverRejected(receiver)) >= sent;
  }

  /** What the aggregator took in of this protocol's records: all kinds for mesh (calls and flows). */
  private long aggregated(Scrape s) {
    return rover ? s.aggregatorAccepted("kernel") : s.aggregatorAccepted();
  }

  private boolean report(Scrape end, Scrape base, long sent, long derived, long msgs, long sendNanos, long cpuUsed,
      long serverCpu) {
    double secs = sendNanos / 1e9;
    String unit = als ? "entries" : "records";
    String per = als ? "entry" : "record";
    System.out.println();
    System.out.println("== result ==");
    long bytes = senders.stream().mapToLong(s -> s.bytes.get()).sum();
    System.out.printf(Locale.ROOT, "sent                %,d %s in %.1f s = %,.0f %s/s; %,d messages = %,.0f msg/s"
        + " (batch %d, %d streams); %.1f MB = %.2f MB/s of protobuf, %.0f bytes per %s%n", sent, unit, secs,
        sent / secs, als ? "entries" : "rec", msgs, msgs / secs, o.integer("batch"), senders.size(),
        bytes / 1048576.0, bytes / 1048576.0 / secs, sent == 0 ? 0.0 : (double) bytes / sent, per);
    long opened = senders.stream().mapToLong(s -> s.streamsOpened.get()).sum();
    long failed = senders.stream().mapToLong(s -> s.streamsFailed.get()).sum();
    long waits = senders.stream().mapToLong(s -> s.readyWaits.get()).sum();
    long rotated = senders.stream().mapToLong(s -> s.streamsRotated.get()).sum();
    long rotatedBad = senders.stream().mapToLong(s -> s.rotatedNotOk.get()).sum();
    System.out.printf(Locale.ROOT, "streams             %d opened, %d ended early by the server, %d rotated (%d of them"
        + " not OK), %,d waits for onReady%n", opened, failed, rotated, rotatedBad, waits);
    for (StreamSender<?> s : senders) {
      System.out.println("                    " + s.describeFinal()
          + (s.lastError != null ? "; last failure: " + s.lastError : ""));
    }
    boolean ok = false;
    if (end == null) {
      System.out.println("server              /metrics unreachable at the end; cannot verify");
    } else {
      ok = als ? verifyAls(end, base, sent, derived, secs) : verifyRecords(end, base, sent, secs);
      System.out.println("server flush        " + flushText(end, base));
      double open = end.first("sextant_aggregator_open_accumulators");
      double partials = end.first("sextant_storage_memory_partials");
      double pending = end.first("sextant_flush_pending_partials");
      System.out.printf(Locale.ROOT,
          "server state        %,.0f open accumulators, %,.0f partials stored, %,.0f pending%n",
          open, partials, pending);
      double heap = end.sum("jvm_memory_used_bytes", "area=\"heap\"");
      if (heap > 0) {
        System.out.printf(Locale.ROOT, "server heap used    %.1f MB%n", heap / 1048576.0);
      }
    }
    System.out.println("server RSS          " + (serverPid > 0
        ? String.format(Locale.ROOT, "current %s, peak sampled %s, kernel high-water mark %s%s",
            mb(ServerStats.rssBytes(serverPid)), mb(peakRss), mb(ServerStats.peakRssBytes(serverPid)),
            inprocess ? " (in-process: generator and server together)" : "")
        : "unknown (pass --server-pid)"));
    if (serverCpu >= 0) {
      System.out.printf(Locale.ROOT, "server CPU          %.1f s while sending = %.2f cores, %.2f µs per %s%n",
          serverCpu / 1e9, serverCpu / (double) sendNanos, sent == 0 ? 0 : serverCpu / 1e3 / sent, per);
    }
    long pooled = rover ? roverPools.stream().mapToLong(p -> p.totalRecords).sum()
        : als ? alsPools.stream().mapToLong(p -> p.totalRecords).sum() : pool.totalRecords;
    System.out.printf(Locale.ROOT, "generator CPU       %.1f s while sending = %.2f cores%s; %s of %,d %s"
        + " rebuilt %d times, %.1f ms each%n", cpuUsed / 1e9, cpuUsed / (double) sendNanos,
        inprocess ? " (process total: includes the in-process server)" : "",
        rover ? roverPools.size() + " pools" : als ? alsPools.size() + " pools" : "pool", pooled, unit,
        poolBuilds.get(),
        poolBuilds.get() == 0 ? 0 : poolBuildNanos.get() / 1e6 / poolBuilds.get());
    return ok;
  }

  /** Mesh and rover: every record sent accepted by the receiver and by the aggregator, none rejected. */
  private boolean verifyRecords(Scrape end, Scrape base, long sent, double secs) {
    long accepted = end.receiverAccepted(receiver) - base.receiverAccepted(receiver);
    long aggregated = aggregated(end) - aggregated(base);
    long rejected = end.receiverRejected(receiver) - base.receiverRejected(receiver);
    System.out.printf(Locale.ROOT, "server accepted     %,d records (receiver %s), %,d (aggregator) = %,.0f rec/s;"
        + " rejected %,d%n", accepted, receiver, aggregated, accepted / secs, rejected);
    if (rejected > 0) {
      printByReason(end, base, "sextant_receiver_records_rejected_total", "rejected",
          "receiver=\"" + receiver + "\"");
    }
    boolean ok = accepted == sent && aggregated == sent && rejected == 0;
    System.out.printf(Locale.ROOT,
        "processed == sent   %s (sent %,d, receiver accepted %,d, aggregator accepted %,d)%n",
        ok ? "YES" : "NO", sent, accepted, aggregated);
    return ok;
  }

  /**
   * Every entry sent was received ({@code sextant_als_entries_total{kind="http"}}) and none was
   * dropped; then the aggregator should hold exactly the call records those entries make.
   */
  private boolean verifyAls(Scrape end, Scrape base, long sent, long derived, double secs) {
    long received = end.alsHttpEntries() - base.alsHttpEntries();
    long dropped = end.alsDropped() - base.alsDropped();
    long calls = end.aggregatorCalls() - base.aggregatorCalls();
    long attributed = (long) (end.sum("sextant_als_entries_attributed_total")
        - base.sum("sextant_als_entries_attributed_total"));
    long callerUnknown = (long) (end.sum("sextant_als_entries_partially_attributed_total")
        - base.sum("sextant_als_entries_partially_attributed_total"));
    System.out.printf(Locale.ROOT, "server received     %,d HTTP entries = %,.0f entries/s; %,d attributed"
        + " (%,d without a known caller); dropped %,d%n", received, received / secs, attributed, callerUnknown,
        dropped);
    if (dropped > 0) {
      printByReason(end, base, "sextant_als_entries_dropped_total", "dropped");
    }
    System.out.printf(Locale.ROOT, "server accepted     %,d call records (aggregator) = %,.0f rec/s; %,d expected"
        + " from the entries sent (%.2f per entry)%n", calls, calls / secs, derived,
        sent == 0 ? 0.0 : (double) derived / sent);
    boolean processed = received == sent && dropped == 0;
    System.out.printf(Locale.ROOT, "processed == sent   %s (sent %,d entries, server received %,d, dropped %,d)%n",
        processed ? "YES" : "NO", sent, received, dropped);
    boolean recordsOk = calls == derived;
    System.out.printf(Locale.ROOT, "records == expected %s (call records accepted %,d, expected %,d)%n",
        recordsOk ? "YES" : "NO", calls, derived);
    return processed && recordsOk;
  }

  private static void printByReason(Scrape end, Scrape base, String metric, String verb,
      String... labelFragments) {
    Map<String, Double> now = end.byLabel(metric, "reason", labelFragments);
    Map<String, Double> before = base.byLabel(metric, "reason", labelFragments);
    now.forEach((reason, v) -> {
      double d = v - before.getOrDefault(reason, 0.0);
      if (d > 0) {
        System.out.printf(Locale.ROOT, "                    %s %-24s %,.0f%n", verb, reason, d);
      }
    });
  }

  private static String flushText(Scrape end, Scrape base) {
    if (!end.has("sextant_flush_duration_seconds") && !end.has("sextant_flush_duration_seconds_count")) {
      return "no sextant_flush_duration_seconds in /metrics";
    }
    double p50 = end.first("sextant_flush_duration_seconds", "quantile=\"0.5\"");
    double p99 = end.first("sextant_flush_duration_seconds", "quantile=\"0.99\"");
    double max = end.first("sextant_flush_duration_seconds_max");
    double count = end.sum("sextant_flush_duration_seconds_count") - base.sum("sextant_flush_duration_seconds_count");
    double sum = end.sum("sextant_flush_duration_seconds_sum") - base.sum("sextant_flush_duration_seconds_sum");
    return String.format(Locale.ROOT,
        "p50 %.1f ms, p99 %.1f ms, max %.1f ms, mean %.1f ms over %.0f flushes in the run",
        p50 * 1e3, p99 * 1e3, max * 1e3, count > 0 ? sum / count * 1e3 : Double.NaN, count);
  }

  private void rebuildPool(CallSampler sampler, int records, int batch) {
    long t = System.nanoTime();
    try {
      pool = MessagePool.build(sampler, records, batch, System.currentTimeMillis());
    } catch (RuntimeException e) {
      System.err.println("building the message pool failed: " + e);
      return;
    }
    poolBuildNanos.addAndGet(System.nanoTime() - t);
    poolBuilds.incrementAndGet();
  }

  private void rebuildRoverPools(List<RoverTraffic.Stream> streams, int recordsPerStream, int batch) {
    long t = System.nanoTime();
    try {
      long now = System.currentTimeMillis();
      List<MessagePool<EBPFAccessLogMessage>> pools = new ArrayList<>(streams.size());
      for (RoverTraffic.Stream s : streams) {
        pools.add(s.build(recordsPerStream, batch, now));
      }
      roverPools = List.copyOf(pools);
    } catch (RuntimeException e) {
      System.err.println("building the Rover access-log message pools failed: " + e);
      return;
    }
    poolBuildNanos.addAndGet(System.nanoTime() - t);
    poolBuilds.incrementAndGet();
  }

  private void rebuildAlsPools(List<AlsTraffic.Stream> streams, int entriesPerStream, int batch) {
    long t = System.nanoTime();
    try {
      long now = System.currentTimeMillis();
      List<MessagePool<StreamAccessLogsMessage>> pools = new ArrayList<>(streams.size());
      for (AlsTraffic.Stream s : streams) {
        pools.add(s.build(entriesPerStream, batch, now));
      }
      alsPools = List.copyOf(pools);
    } catch (RuntimeException e) {
      System.err.println("building the access-log message pools failed: " + e);
      return;
    }
    poolBuildNanos.addAndGet(System.nanoTime() - t);
    poolBuilds.incrementAndGet();
  }

  private void sampleRss() {
    long rss = ServerStats.rssBytes(serverPid);
    if (rss > peakRss) {
      peakRss = rss;
    }
  }

  private String rssText() {
    if (serverPid <= 0) {
      return "";
    }
    return " | rss " + mb(ServerStats.rssBytes(serverPid)) + " (peak " + mb(peakRss) + ")";
  }

  private static String mb(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
  }

  private long sentRecords() {
    return senders.stream().mapToLong(s -> s.records.get()).sum();
  }

  private long sentMessages() {
    return senders.stream().mapToLong(s -> s.messages.get()).sum();
  }
}
