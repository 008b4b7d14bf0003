package io.sextant.server.assembly;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.grpc.GrpcClients;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.grpc.GrpcService;
import com.linecorp.armeria.server.grpc.GrpcServiceBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.config.Settings;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.WarmUpTraffic;
import io.sextant.core.aggregate.Aggregator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the ingest path before the collector reports ready: each enabled receiver's warm-up traffic
 * ({@link ReceiverFactory#warmUpTraffic}) goes over real gRPC on a loopback port to scratch copies
 * of those receivers, behind the same routes as the receiver port, aggregated by a scratch
 * aggregator whose rows are collected and dropped. A fresh JVM otherwise compiles this path once
 * the first real streams arrive: for the first half minute after a restart the JIT takes most of a
 * core and the network threads several times their steady CPU, and the first dashboards wait.
 * Round after round until the rounds stop getting faster and the JIT compiler is quiet
 * ({@link WarmUpProgress}), a round fails or the budget is spent: on a machine busy with other
 * collectors, rounds left off improving after a few of them while the compiler had not yet seen
 * most of the path, and it compiled that under the first live streams instead. Nothing of it
 * reaches storage, the real aggregator or its self-metrics (the scratch copies count into a
 * registry of their own).
 */
final class IngestWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(IngestWarmUp.class);

  /**
   * What a warm-up did: the receivers it sent traffic to, the records sent, how many the scratch
   * aggregator took, and why it stopped.
   */
  record Result(List<String> receivers, int rounds, long sent, long accepted, String stoppedAs) {}

  private final List<ReceiverFactory> factories;
  private final Settings settings;
  private final Function<MeterRegistry, Aggregator> scratchAggregator;
  private final int maxGrpcMessageBytes;
  private final Duration budget;
  private final JitCompiler compiler;
  private final Counter records;

  /**
   * {@code scratchAggregator} makes an aggregator like the real one, counting into the registry
   * it is given; {@code factories} are the enabled receivers'. The warm-up also waits for a quiet
   * {@code compiler} ({@link JitCompiler#NOT_WATCHED}: its rounds alone decide).
   */
  IngestWarmUp(List<ReceiverFactory> factories, Settings settings,
      Function<MeterRegistry, Aggregator> scratchAggregator, int maxGrpcMessageBytes, Duration budget,
      JitCompiler compiler, MeterRegistry registry) {
    this.factories = factories;
    this.settings = settings;
    this.scratchAggregator = scratchAggregator;
    this.maxGrpcMessageBytes = maxGrpcMessageBytes;
    this.budget = budget;
    this.compiler = compiler;
    this.records = Counter.builder("sextant_ingest_warm_up_records")
        .description("records the ingest warm-up sent to scratch receivers after the start"
            + " (server.ingestWarmUpSeconds); never stored")
        .register(registry);
  }

  Result run() {
    long started = System.nanoTime();
    MeterRegistry scratchMeters = new SimpleMeterRegistry();
    Aggregator sink = scratchAggregator.apply(scratchMeters);
    List<Receiver> receivers = new ArrayList<>();
    List<WarmUpTraffic> traffic = new ArrayList<>();
    List<String> names = new ArrayList<>();
    GrpcServiceBuilder grpc = GrpcService.builder().maxRequestMessageLength(maxGrpcMessageBytes)
        .supportedSerializationFormats(GrpcSerializationFormats.PROTO);
    for (ReceiverFactory factory : factories) {
      factory.warmUpTraffic().ifPresent(t -> {
        Receiver receiver = factory.create(new ReceiverContext(settings, sink, scratchMeters));
        receivers.add(receiver);
        receiver.services().forEach(grpc::addService);
        traffic.add(t);
        names.add(factory.name());
      });
    }
    if (traffic.isEmpty()) {
      LOG.info("no enabled receiver has warm-up traffic; the ingest path warms up on real traffic");
      return new Result(List.of(), 0, 0, 0, "no receiver has warm-up traffic");
    }
    long sent = 0;
    long elapsed;
    WarmUpProgress progress = new WarmUpProgress(started, budget, compiler);
    String why;
    int port = freeLoopbackPort();
    ServerBuilder sb = Server.builder()
        .port(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), SessionProtocol.HTTP)
        // Every round was answered: nothing in flight to wait for when it stops.
        .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO);
    GrpcRoutes.install(sb, port, grpc.build(), scratchMeters);
    Server server = sb.build();
    ClientFactory clients = ClientFactory.builder().build();
    try {
      server.start().join();
      WarmUpTraffic.Stubs stubs = stubs("http://127.0.0.1:" + port, clients);
      while (true) {
        long round = System.nanoTime();
        why = progress.stopBefore(round);
        if (why != null) {
          break;
        }
        for (WarmUpTraffic t : traffic) {
          int n = t.round(stubs);
          sent += n;
          records.increment(n);
        }
        // What the flusher does every second: copy what changed (the rows are dropped).
        sink.collect(Long.MIN_VALUE, false);
        long now = System.nanoTime();
        progress.round(now - round, now);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      why = "it was interrupted";
    } catch (Exception e) {
      why = "a round failed: " + e.getMessage();
    } finally {
      elapsed = System.nanoTime() - started;
      clients.close();
      // Not waited for: the acceptor's event loop takes 2 s to shut down, and nothing needs it gone.
      CompletableFuture<Void> unusedStop = server.stop();
      receivers.forEach(Receiver::close);
    }
    long accepted = Math.round(scratchMeters.find("sextant_records_accepted").counters().stream()
        .mapToDouble(Counter::count).sum());
    LOG.info("warmed up the ingest path ({}): {} rounds, {} records in {} ms, stopped as {}; a round took {} ms at"
        + " first, {} ms at the end; the scratch aggregator took {} of them (nothing is stored){}",
        String.join(", ", names), progress.rounds(), sent, TimeUnit.NANOSECONDS.toMillis(elapsed), why,
        progress.firstMillis(), progress.lastMillis(), accepted, progress.compilerSummary());
    return new Result(List.copyOf(names), progress.rounds(), sent, accepted, why);
  }

  private static WarmUpTraffic.Stubs stubs(String uri, ClientFactory clients) {
    Map<Class<?>, Object> made = new ConcurrentHashMap<>();
    return new WarmUpTraffic.Stubs() {
      @Override
      public <T> T stub(Class<T> stubType) {
        return stubType.cast(made.computeIfAbsent(stubType,
            t -> GrpcClients.builder(uri).factory(clients).maxResponseLength(0).build(t)));
      }
    };
  }

  /** A port free a moment ago: the routes are keyed by port, so the scratch server needs its number up front. */
  private static int freeLoopbackPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port for the ingest warm-up", e);
    }
  }
}
