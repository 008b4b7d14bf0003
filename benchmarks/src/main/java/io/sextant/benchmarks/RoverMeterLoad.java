package io.sextant.benchmarks;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.ProcessSampleRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.receiver.ebpf.meter.MeterBatch;
import io.sextant.receiver.ebpf.meter.RoverMeterEngine;
import io.sextant.server.assembly.SextantServer;
import io.sextant.server.config.SextantConfig;
import io.sextant.testkit.net.FreePort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.language.agent.v3.Label;
import org.apache.skywalking.apm.network.language.agent.v3.MeterBucketValue;
import org.apache.skywalking.apm.network.language.agent.v3.MeterData;
import org.apache.skywalking.apm.network.language.agent.v3.MeterDataCollection;
import org.apache.skywalking.apm.network.language.agent.v3.MeterHistogram;
import org.apache.skywalking.apm.network.language.agent.v3.MeterReportServiceGrpc;
import org.apache.skywalking.apm.network.language.agent.v3.MeterSingleValue;

/**
 * Rover's network-profiling meters through a real in-process server: {@code collectBatch} streams
 * over gRPC → the eBPF receiver's rule engine → the aggregator (memory store). Prints samples per
 * second, stream latency percentiles and heap, then {@code getProcessTopology} latency over HTTP.
 * Arguments: {@code [instances=50] [seconds=20] [clients=4]}.
 */
public final class RoverMeterLoad {
  private static final int PROCESSES = 10;
  private static final int PEERS = 5;
  private static final int COLLECTIONS_PER_STREAM = 20;
  private static final String[] COUNTERS = {"client_write_counts_counter", "client_write_bytes_counter",
      "client_write_exe_time_counter", "client_read_counts_counter", "client_read_bytes_counter",
      "client_read_exe_time_counter", "client_connect_counts_counter", "http1_request_counter"};

  private RoverMeterLoad() {}

  public static void main(String[] args) throws Exception {
    int instances = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int clients = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    int grpcPort = FreePort.any();
    int httpPort = FreePort.any();
    SextantServer server = new SextantServer(SextantConfig.defaults().with(Map.of("query.warmUpSeconds", "0",
        "server.host", "127.0.0.1", "server.grpcPort", String.valueOf(grpcPort),
        "server.httpPort", String.valueOf(httpPort), "core.collectorId", "rover-load"))).start();
    try {
      List<MeterDataCollection> collections = new ArrayList<>();
      long samplesPerRound = 0;
      for (int i = 0; i < instances; i++) {
        MeterDataCollection c = collection("svc-" + i, "pod-" + i);
        collections.add(c);
        samplesPerRound += samples(c);
      }
      engineThroughput(collections, samplesPerRound, seconds);
      registerProcesses(server, instances);
      System.out.printf(Locale.ROOT, "%d instances × %d processes × %d peers: %d samples per round%n",
          instances, PROCESSES, PEERS, samplesPerRound);
      MeterReportServiceGrpc.MeterReportServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
          .build(MeterReportServiceGrpc.MeterReportServiceStub.class);
      run(stub, collections, 5, clients, new Histogram(3)); // warm-up
      Histogram latency = new Histogram(3);
      Runtime rt = Runtime.getRuntime();
      long start = System.nanoTime();
      long sent = run(stub, collections, seconds, clients, latency);
      double elapsed = (System.nanoTime() - start) / 1e9;
      System.gc();
      long heap = rt.totalMemory() - rt.freeMemory();
      System.out.printf(Locale.ROOT, "meters: %.0f samples/s over %.1f s (%d samples, %d clients)%n",
          sent / elapsed, elapsed, sent, clients);
      System.out.printf(Locale.ROOT, "stream of %d samples: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          sent / Math.max(1, latency.getTotalCount()), latency.getValueAtPercentile(50) / 1e3,
          latency.getValueAtPercentile(90) / 1e3, latency.getValueAtPercentile(99) / 1e3,
          latency.getMaxValue() / 1e3);
      System.out.printf(Locale.ROOT, "heap after GC: %.0f MB%n", heap / 1e6);
      server.flusher().flush(false);
      topologyLatency(httpPort, instances);
    } finally {
      server.close();
    }
  }

  /**
   * The receiver's rule engine straight into an aggregator (no gRPC, no client): what one collector
   * thread turns into accumulators per second, and each batch's evaluation latency.
   */
  private static void engineThroughput(List<MeterDataCollection> collections, long samplesPerRound, int seconds) {
    Aggregator aggregator = new Aggregator(MetricFamilies.catalog(500), RecordKindDispatcher.standard(1_000_000),
        new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC()), new AggregatorLimits(10_000_000, 1440, 10),
        new SimpleMeterRegistry());
    RoverMeterEngine engine = new RoverMeterEngine(1024);
    long[] refused = new long[1];
    RoverMeterEngine.Output out = new RoverMeterEngine.Output() {
      @Override
      public boolean sample(ProcessSampleRecord sample) {
        if (aggregator.offer(sample) != Admission.ACCEPTED) {
          refused[0]++;
        }
        return true;
      }

      @Override
      public void refuse(String reason, String detail, long count) {
        refused[0] += count;
      }

      @Override
      public void unmapped(long count) {}

      @Override
      public void virtualProcess(String service, String instance, String name) {}

      @Override
      public boolean admitRelation(String localProcessId, String peer) {
        return true;
      }
    };
    Histogram latency = new Histogram(3);
    for (int pass = 0; pass < 2; pass++) { // warm-up, then measured
      latency.reset();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(pass == 0 ? 5 : seconds);
      long start = System.nanoTime();
      long samples = 0;
      int next = 0;
      while (System.nanoTime() < end) {
        MeterDataCollection c = collections.get(next++ % collections.size());
        MeterBatch batch = new MeterBatch();
        c.getMeterDataList().forEach(batch::add);
        long t0 = System.nanoTime();
        engine.evaluate(batch, System.currentTimeMillis(), out);
        latency.recordValue((System.nanoTime() - t0) / 1_000);
        samples += samplesPerRound / collections.size();
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      if (pass == 1) {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        System.out.printf(Locale.ROOT, "engine → aggregator, one thread: %.0f samples/s (%d refused); "
            + "batch of %d samples: p50 %.2f ms, p99 %.2f ms, max %.2f ms; heap after GC %.0f MB, "
            + "%d open accumulators%n", samples / elapsed, refused[0], samplesPerRound / collections.size(),
            latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
            latency.getMaxValue() / 1e3, (rt.totalMemory() - rt.freeMemory()) / 1e6,
            aggregator.openAccumulators());
      }
    }
  }

  private static long run(MeterReportServiceGrpc.MeterReportServiceStub stub, List<MeterDataCollection> collections,
      int seconds, int clients, Histogram latency) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<Long>> futures = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      int offset = t;
      futures.add(pool.submit(() -> {
        long sent = 0;
        int next = offset;
        while (System.nanoTime() < end) {
          CompletableFuture<Void> done = new CompletableFuture<>();
          long t0 = System.nanoTime();
          StreamObserver<MeterDataCollection> stream = stub.collectBatch(new StreamObserver<Commands>() {
            @Override
            public void onNext(Commands value) {}

            @Override
            public void onError(Throwable e) {
              done.completeExceptionally(e);
            }

            @Override
            public void onCompleted() {
              done.complete(null);
            }
          });
          for (int i = 0; i < COLLECTIONS_PER_STREAM; i++) {
            MeterDataCollection c = collections.get(next++ % collections.size());
            stream.onNext(c);
            sent += samples(c);
          }
          stream.onCompleted();
          done.get(60, TimeUnit.SECONDS);
          synchronized (latency) {
            latency.recordValue((System.nanoTime() - t0) / 1_000);
          }
        }
        return sent;
      }));
    }
    long total = 0;
    for (Future<Long> f : futures) {
      total += f.get();
    }
    pool.shutdown();
    return total;
  }

  private static void topologyLatency(int httpPort, int instances) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm");
    String from = format.format(java.time.ZonedDateTime.now().minusMinutes(5));
    String minute = format.format(java.time.ZonedDateTime.now());
    Histogram h = new Histogram(3);
    for (int i = 0; i < 300; i++) {
      String instanceId = EntityIds.instanceId(EntityIds.serviceId("svc-" + (i % instances), true), "pod-"
          + (i % instances));
      String q = "{\"query\":\"{ t: getProcessTopology(serviceInstanceId: \\\"" + instanceId
          + "\\\", duration: {start: \\\"" + from + "\\\", end: \\\"" + minute + "\\\", step: MINUTE}) "
          + "{ nodes { id name isReal } calls { id source target detectPoints } } }\"}";
      long t0 = System.nanoTime();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
          + "/graphql")).header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(q))
          .build(), HttpResponse.BodyHandlers.ofString());
      if (i >= 50) {
        h.recordValue((System.nanoTime() - t0) / 1_000);
      }
      if (i == 0) {
        System.out.println("getProcessTopology answer: " + r.body().length() + " bytes, "
            + (r.body().split("\"source\"").length - 1) + " calls");
      }
    }
    System.out.printf(Locale.ROOT, "getProcessTopology: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
        h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3);
  }

  /** One Rover flush of an instance: every local process to each peer (processes of the same pod). */
  private static MeterDataCollection collection(String service, String instance) {
    MeterDataCollection.Builder c = MeterDataCollection.newBuilder();
    for (int p = 0; p < PROCESSES; p++) {
      String local = ProcessIds.processId(service, instance, "p" + p);
      for (int peer = 1; peer <= PEERS; peer++) {
        String server = ProcessIds.processId(service, instance, "p" + ((p + peer) % PROCESSES));
        List<Label> labels = List.of(label("client_process_id", local), label("server_process_id", server),
            label("side", "client"), label("protocol", "http"), label("is_ssl", "false"));
        for (String counter : COUNTERS) {
          c.addMeterData(MeterData.newBuilder().setSingleValue(MeterSingleValue.newBuilder()
              .setName("rover_net_p_" + counter).setValue(10 + p).addAllLabels(labels)));
        }
        MeterHistogram.Builder h = MeterHistogram.newBuilder().setName("rover_net_p_client_write_rtt_histogram")
            .addAllLabels(labels);
        for (int b = 0; b < 8; b++) {
          h.addValues(MeterBucketValue.newBuilder().setBucket(b * 10).setCount(b + 1));
        }
        c.addMeterData(MeterData.newBuilder().setHistogram(h));
      }
    }
    c.getMeterDataBuilder(0).setService(service).setServiceInstance(instance)
        .setTimestamp(System.currentTimeMillis());
    return c.build();
  }

  private static void registerProcesses(SextantServer server, int instances) {
    List<ProcessMeta> processes = new ArrayList<>();
    long minute = Long.parseLong(java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmm")
        .format(java.time.ZonedDateTime.now()));
    for (int i = 0; i < instances; i++) {
      String serviceId = EntityIds.serviceId("svc-" + i, true);
      String instanceId = EntityIds.instanceId(serviceId, "pod-" + i);
      for (int p = 0; p < PROCESSES; p++) {
        processes.add(new ProcessMeta(ProcessIds.processId(instanceId, "p" + p), serviceId, instanceId, "p" + p,
            "MESH", "rover", "KUBERNETES", List.of(), Map.of(), true, minute, minute));
      }
    }
    server.storage().metadata().upsertProcesses(processes);
  }

  /** Samples a collection carries: a histogram counts one per bucket. */
  private static long samples(MeterDataCollection c) {
    long n = 0;
    for (MeterData d : c.getMeterDataList()) {
      n += d.hasHistogram() ? d.getHistogram().getValuesCount() : 1;
    }
    return n;
  }

  private static Label label(String name, String value) {
    return Label.newBuilder().setName(name).setValue(value).build();
  }

}
