package io.sextant.server.assembly;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.grpc.GrpcService;
import com.linecorp.armeria.server.grpc.GrpcServiceBuilder;
import graphql.GraphQL;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FlusherConfig;
import io.sextant.core.flush.FreshStorage;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.core.record.PublishingMetadataStore;
import io.sextant.core.record.StorageRecordWriter;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SextantGraphql;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.server.config.Plugins;
import io.sextant.server.config.SextantConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one assembly class: builds every component from the configuration with constructors, starts
 * them in order (storage, core, query, receivers) and stops them in reverse, flushing what was
 * accepted. What it is built of is listed in {@link Plugins}.
 */
public final class SextantServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SextantServer.class);
  public static final String VERSION = "10.1.0-sextant-0.1.0";

  private final SextantConfig config;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final StorageComponent storage;
  private final Aggregator aggregator;
  private final Flusher flusher;
  private final QueryServices query;
  private final TimeBuckets buckets;
  private final ScheduledExecutorService keeper =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-keeper"));
  private final List<Receiver> receivers = new ArrayList<>();
  private final StreamDrain streams = new StreamDrain();
  /** Probes storage on a thread of its own: a frozen Elasticsearch must not hold up the keeper. */
  private final ScheduledExecutorService storageProbe =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-storage-probe"));
  private final Readiness readiness;
  private ThreadPoolExecutor expressionPool;
  private Server server;
  private boolean closed;

  public SextantServer(SextantConfig config) {
    this.config = config;
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    ZoneId zone = ZoneId.of(config.string("core.timezone"));
    this.buckets = new TimeBuckets(zone, Clock.systemUTC());
    MetricCatalog catalog = MetricFamilies.catalog(config.integer("core.apdexThresholdMillis"));
    // The selected backend; constructors do no I/O.
    this.storage = Plugins.storage(config.string("storage.selector")).create(config, registry);
    this.aggregator = new Aggregator(catalog,
        RecordKindDispatcher.standard(config.integer("core.maxCachedIds")), buckets,
        new AggregatorLimits(config.integer("core.maxAccumulators"), config.integer("core.maxLateMinutes"),
            config.integer("core.maxFutureMinutes")), registry);
    this.flusher = new Flusher(aggregator, storage, buckets, new FlusherConfig(
        config.integer("core.flushIntervalMillis"), config.integer("core.closedCollectIntervalMillis"),
        config.integer("core.rollupIntervalMillis"),
        config.integer("core.graceMinutes"),
        config.integer("core.maxPendingMegabytes") * 1024L * 1024), config.string("core.collectorId"), registry);
    // Queries see this collector's own metrics before they are stored (FreshMetrics).
    this.query = QueryServices.over(new FreshStorage(storage, flusher), catalog, buckets);
    this.readiness = new Readiness(flusher::pendingFillRatio, storage::check,
        config.integer("server.readyHighWaterPercent"), registry);
  }

  public SextantServer start() {
    storage.start();
    readiness.probeStorage();
    Future<?> unusedProbe = storageProbe.scheduleWithFixedDelay(readiness::probeStorage, 5, 5, TimeUnit.SECONDS);
    flusher.start();
    loadShippedTemplates(1);
    // Runs until the keeper is shut down on close(); nothing waits on it, so its future is not kept.
    Future<?> unused = keeper.scheduleWithFixedDelay(this::expire, 1, 1, TimeUnit.MINUTES);
    expressionPool = expressionPool(config.integer("query.expressionThreads"));
    QueryLimits limits = new QueryLimits(config.integer("query.maxDepth"), config.integer("query.maxComplexity"),
        config.integer("query.maxDurationPoints"));
    GraphQL graphql = SextantGraphql.build(SextantGraphql.standardAreas(query, limits, VERSION, readiness::health,
        buckets.zone(), Clock.systemUTC(), expressionPool), limits, config.integer("query.maxCachedDocuments"));
    int grpcPort = config.integer("server.grpcPort");
    int httpPort = config.integer("server.httpPort");
    String host = config.string("server.host");
    ServerBuilder sb = Server.builder()
        .port(new InetSocketAddress(host, grpcPort), com.linecorp.armeria.common.SessionProtocol.HTTP)
        .port(new InetSocketAddress(host, httpPort), com.linecorp.armeria.common.SessionProtocol.HTTP)
        .maxRequestLength(config.integer("server.maxHttpRequestBytes"))
        .requestTimeout(Duration.ofSeconds(config.integer("server.requestTimeoutSeconds")))
        // No quiet period: stop taking new requests at once, let in-flight ones finish.
        .gracefulShutdownTimeout(Duration.ZERO, Duration.ofSeconds(config.integer("server.shutdownGraceSeconds")));
    GrpcServiceBuilder grpc = GrpcService.builder()
        .maxRequestMessageLength(config.integer("server.maxGrpcMessageBytes"))
        // Binary protobuf only: every client we serve speaks it, and JSON would need marshallers
        // for every message type (Envoy's Prometheus types have none).
        .supportedSerializationFormats(GrpcSerializationFormats.PROTO)
        .addService(new GrpcHealthService(readiness::check))
        .intercept(streams);
    StorageRecordWriter records = new StorageRecordWriter(storage);
    for (ReceiverFactory factory : Plugins.RECEIVERS) {
      if (config.bool(factory.enabledKey())) {
        Receiver receiver = factory.create(
            new ReceiverContext(config, aggregator, records, registry, new PublishingMetadataStore(storage),
                storage.management()));
        receivers.add(receiver);
        receiver.services().forEach(grpc::addService);
      }
    }
    receivers.forEach(Receiver::start);
    // A sidecar keeps one stream open for as long as it lives: no deadline and no total size
    // for a stream (each message is still bounded by maxGrpcMessageBytes).
    sb.virtualHost(grpcPort).service(grpc.build(), delegate -> (ctx, req) -> {
      ctx.clearRequestTimeout();
      ctx.setMaxRequestLength(0);
      // Only the callback matters (it counts the stream); the future it returns carries nothing.
      CompletableFuture<?> unusedCount = ctx.log().whenComplete().thenAccept(log -> countStream(log.fullName(),
          log.responseCause(), log.responseTrailers().get("grpc-status"), log.responseHeaders().get("grpc-status")));
      return delegate.serve(ctx, req);
    });
    // Anything else on the gRPC port: UNIMPLEMENTED naming the method, counted, instead of a 404.
    sb.virtualHost(grpcPort).serviceUnder("/", new UnservedGrpcCalls(registry));
    sb.virtualHost(httpPort)
        .service("/graphql", new GraphqlHttpService(graphql, registry))
        .service("/metrics", (ctx, req) -> HttpResponse.of(HttpStatus.OK,
            MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), registry.scrape()))
        .service("/healthz", (ctx, req) -> HttpResponse.of("ok"))
        .service("/readyz", (ctx, req) -> {
          CheckResult r = readiness.check();
          HttpStatus status = r.ok() ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE;
          String body = ctx.queryParam("verbose") != null ? readiness.verbose() : r.ok() ? "ready" : r.detail();
          return HttpResponse.of(status, MediaType.PLAIN_TEXT_UTF_8, body);
        })
        .service("/", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.HTML_UTF_8, consolePage()));
    server = sb.build();
    server.start().join();
    readiness.serving();
    LOG.info("Sextant {} started: gRPC receivers on {}:{}, GraphQL on http://{}:{}/graphql (collector {})",
        VERSION, host, grpcPort, host, httpPort, config.string("core.collectorId"));
    return this;
  }

  /**
   * Runs the expressions of one GraphQL request at once. Bounded: when every thread is busy and
   * the queue is full, the request's own thread runs the expression (never refused).
   */
  private static ThreadPoolExecutor expressionPool(int threads) {
    AtomicInteger n = new AtomicInteger();
    return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1_000), r -> {
      Thread t = new Thread(r, "sextant-expression-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }, new ThreadPoolExecutor.CallerRunsPolicy());
  }

  /**
   * Installs the shipped dashboards. The first attempt runs at start, so a started server serves them;
   * if storage is not ready yet (Elasticsearch may be briefly unavailable), retries in the background
   * with backoff up to a minute apart, logging each failure, instead of failing start.
   */
  private void loadShippedTemplates(int attempt) {
    try {
      LOG.info("shipped UI templates: {}", query.templates().loadShipped());
    } catch (RuntimeException e) {
      long delaySeconds = Math.min(60, 1L << Math.min(attempt, 6));
      LOG.warn("installing the shipped UI templates failed (attempt {}); retrying in {} s: {}", attempt,
          delaySeconds, e.toString());
      if (!closed) {
        Future<?> unused = keeper.schedule(() -> loadShippedTemplates(attempt + 1), delaySeconds, TimeUnit.SECONDS);
      }
    }
  }

  /** Counts every finished gRPC stream by method and status, e.g. RESOURCE_EXHAUSTED for oversize. */
  private void countStream(String method, Throwable cause, String trailerStatus, String headerStatus) {
    String code = trailerStatus != null ? trailerStatus : headerStatus;
    String status = code == null ? (cause == null ? "UNKNOWN" : "ABORTED")
        : io.grpc.Status.fromCodeValue(Integer.parseInt(code)).getCode().name();
    registry.counter("sextant_grpc_streams", "method", method == null ? "unknown" : method, "status", status)
        .increment();
  }

  private void expire() {
    try {
      storage.applyRetention(buckets);
    } catch (RuntimeException e) {
      LOG.warn("expiring old data failed", e);
    }
  }

  private static String consolePage() {
    try (InputStream in = SextantServer.class.getResourceAsStream("/console.html")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public StorageComponent storage() {
    return storage;
  }

  public QueryServices query() {
    return query;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public Flusher flusher() {
    return flusher;
  }

  /**
   * The SIGTERM path: readiness goes false first and the server keeps serving for
   * {@code server.drainReadinessSeconds}, so Kubernetes (and gRPC health checkers) stop routing
   * new streams here before any is refused; then {@link #close()}.
   */
  public void drain() {
    int readinessSeconds = config.integer("server.drainReadinessSeconds");
    readiness.draining();
    LOG.info("draining: not ready; serving {} s more so balancers stop routing here", readinessSeconds);
    try {
      Thread.sleep(readinessSeconds * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    close();
  }

  /**
   * Stops taking traffic (open client streams are ended at once with {@code UNAVAILABLE}, so clients
   * reconnect elsewhere; new requests refused; unary calls in flight get {@code server.shutdownGraceSeconds}),
   * then writes everything accepted within {@code server.drainTimeoutSeconds}, then closes storage.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    readiness.draining();
    if (server != null) {
      LOG.info("ended {} open client streams (UNAVAILABLE: reconnect elsewhere)", streams.drain());
      server.stop().join();
    }
    keeper.shutdownNow();
    storageProbe.shutdownNow();
    if (expressionPool != null) {
      expressionPool.shutdownNow();
    }
    for (int i = receivers.size() - 1; i >= 0; i--) {
      receivers.get(i).close();
    }
    // The last word on what this collector took: its /metrics is gone with the port.
    LOG.info("records accepted by the receivers: {}", acceptedByReceiver());
    boolean allWritten = writeAccepted(Duration.ofSeconds(config.integer("server.drainTimeoutSeconds")));
    storage.close();
    LOG.info(allWritten ? "Sextant stopped; everything accepted was written"
        : "Sextant stopped; some accepted data was not written (see the warning above)");
  }

  private String acceptedByReceiver() {
    StringBuilder out = new StringBuilder();
    registry.find(ReceiverMetrics.RECORDS_ACCEPTED).counters().stream()
        .sorted(java.util.Comparator.comparing(c -> String.valueOf(c.getId().getTag("receiver"))))
        .forEach(c -> out.append(out.isEmpty() ? "" : ", ").append(c.getId().getTag("receiver")).append('=')
            .append((long) c.count()));
    return out.toString();
  }

  /**
   * Runs the flusher's final write on its own thread so that a store that hangs cannot hold the
   * stop past the timeout; what is left then is counted and logged.
   */
  private boolean writeAccepted(Duration timeout) {
    CompletableFuture<Integer> left = CompletableFuture.supplyAsync(() -> flusher.close(timeout), runnable -> {
      Thread t = new Thread(runnable, "sextant-drain");
      t.setDaemon(true);
      t.start();
    });
    int unwritten;
    try {
      // A little beyond the flusher's own budget: it stops retrying at the timeout by itself.
      unwritten = left.get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      unwritten = -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unwritten = -1;
    } catch (ExecutionException e) {
      LOG.error("writing what was accepted failed", e.getCause());
      unwritten = -1;
    }
    if (unwritten == 0) {
      return true;
    }
    LOG.warn("drain timeout (server.drainTimeoutSeconds={}) reached: {} partial rows not written and {} "
        + "accumulators still open are lost{}", timeout.toSeconds(), Math.max(unwritten, flusher.pendingPartials()),
        aggregator.openAccumulators(), unwritten < 0 ? " (a storage write was still in progress)" : "");
    return false;
  }
}
