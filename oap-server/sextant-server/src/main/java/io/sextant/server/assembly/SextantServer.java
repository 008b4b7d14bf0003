package io.sextant.server.assembly;

import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServerTlsConfig;
import com.linecorp.armeria.server.grpc.GrpcService;
import com.linecorp.armeria.server.grpc.GrpcServiceBuilder;
import graphql.GraphQL;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.ssl.ClientAuth;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.CoreConfig;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.Journal;
import io.sextant.core.dispatch.ChildBudgets;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.flush.Flusher;
import io.sextant.core.flush.FreshStorage;
import io.sextant.core.management.CollectorRoster;
import io.sextant.core.management.HorizonTemplates;
import io.sextant.core.management.ShippedTemplate;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.profiling.StoredProfilingTasks;
import io.sextant.core.query.QueryServices;
import io.sextant.core.record.StorageRecordWriter;
import io.sextant.core.spool.SpoolPorts;
import io.sextant.core.topology.StoredProcessRegistry;
import io.sextant.query.graphql.SchemaArea;
import io.sextant.query.graphql.SextantGraphql;
import io.sextant.query.graphql.area.AlarmRulesArea;
import io.sextant.server.alarm.Alarms;
import io.sextant.server.config.AlarmConfig;
import io.sextant.server.config.ConfigException;
import io.sextant.server.config.Plugins;
import io.sextant.server.config.QueryConfig;
import io.sextant.server.config.SecurityConfig;
import io.sextant.server.config.ServerConfig;
import io.sextant.server.config.SextantConfig;
import io.sextant.server.grpc.GrpcHealthService;
import io.sextant.server.grpc.GrpcRoutes;
import io.sextant.server.grpc.PeerMessageRate;
import io.sextant.server.grpc.PeerProtocolErrors;
import io.sextant.server.http.GraphqlExchange;
import io.sextant.server.http.HttpRoutes;
import io.sextant.server.http.QueryPools;
import io.sextant.server.http.ServerStatus;
import io.sextant.server.lifecycle.FinalWrite;
import io.sextant.server.lifecycle.Membership;
import io.sextant.server.lifecycle.Readiness;
import io.sextant.server.lifecycle.ShippedTemplates;
import io.sextant.server.lifecycle.StartOrder;
import io.sextant.server.lifecycle.StreamDrain;
import io.sextant.server.security.AuditLog;
import io.sextant.server.security.Security;
import io.sextant.server.warmup.QueryWarmUp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one assembly class: builds every component from the configuration with constructors, starts
 * them in one declared order ({@link #start()}: storage, the write path, the query side, receivers,
 * the ports, then alarms, the roster and compaction) and stops them in reverse, writing what was
 * accepted before storage closes. What it is built of is listed in {@link Plugins}.
 */
public final class SextantServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SextantServer.class);
  public static final String VERSION = "10.1.0-sextant-0.1.0";
  /** How often a collector lists itself in storage; three missed beats and the others stop listing it. */
  private static final Duration ROSTER_BEAT = Duration.ofSeconds(10);
  /** How long a start waits for the shipped dashboards before it is ready anyway. */
  private static final long TEMPLATES_GRACE_MILLIS = 2_000;

  private final SextantConfig config;
  private final CoreConfig coreConfig;
  private final ServerConfig serverConfig;
  private final QueryConfig queryConfig;
  private final SecurityConfig securityConfig;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  /** Every write, GraphQL mutation or template-store call, reported to the audit log. */
  private final AuditLog audit = new AuditLog(registry);
  private final StorageComponent storage;
  private final Aggregator aggregator;
  private final Flusher flusher;
  private final QueryServices query;
  /** Core's ports for agents that register processes and poll for profiling work (Rover). */
  private final StoredProcessRegistry processes;
  private final StoredProfilingTasks profilingTasks;
  private final TimeBuckets buckets;
  private final List<Receiver> receivers = new ArrayList<>();
  private final StreamDrain streams = new StreamDrain();
  private final Readiness readiness;
  private final Security security;
  private final Alarms alarms;
  /** What {@link #start()} started, in order; {@link #close()} stops it in reverse. */
  private final StartOrder started = new StartOrder();
  private ShippedTemplates shippedTemplates;
  private boolean allWritten = true;
  private boolean closed;

  public SextantServer(SextantConfig config) {
    this.config = config;
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    FunctionCounter.builder("sextant_peer_protocol_errors", PeerProtocolErrors.class, c -> PeerProtocolErrors.count())
        .description("connections ended because the peer broke HTTP/2 (logged at most once a minute)")
        .register(registry);
    new ProcessorMetrics().bindTo(registry);
    // Each part's keys read once, here; nothing below reads a key by its name.
    CoreConfig core = CoreConfig.load(config);
    this.coreConfig = core;
    this.serverConfig = ServerConfig.load(config);
    this.queryConfig = QueryConfig.load(config);
    this.securityConfig = SecurityConfig.load(config);
    this.buckets = new TimeBuckets(core.timezone(), Clock.systemUTC());
    MetricCatalog catalog = MetricFamilies.catalog(core.apdexThresholdMillis());
    // The selected backend; constructors do no I/O.
    this.storage = Plugins.storage(config.string("storage.selector")).create(config, registry);
    // Durability on the spool's disk, or none: the write path sees only its two ports.
    String writerId = Flusher.writerId(core.collectorId());
    SpoolPorts spool = SpoolPorts.open(core.spool(), writerId, catalog, registry);
    this.aggregator = aggregator(core, catalog, buckets, registry, spool.journal());
    this.flusher = new Flusher(aggregator, storage, buckets, core.flusher(), spool.cutLog(), writerId, registry);
    // Queries see this collector's own metrics before they are stored (FreshMetrics).
    List<ShippedTemplate> shipped = shippedTemplates(queryConfig.horizonTemplates());
    this.query = QueryServices.over(new FreshStorage(storage, flusher), catalog, buckets, () -> shipped);
    this.processes = new StoredProcessRegistry(storage, buckets, registry);
    this.profilingTasks = new StoredProfilingTasks(storage::management);
    this.security = new Security(securityConfig, registry);
    // Alarms read what every collector stored: the store itself, not this collector's fresh view.
    this.alarms = new Alarms(AlarmConfig.load(config), core, storage, catalog, buckets, registry);
    this.readiness = new Readiness(flusher::pendingFillRatio, storage::check,
        serverConfig.readyHighWaterPercent(), registry);
  }

  /**
   * Starts the components in their order. Nothing here waits on storage: a collector started while
   * Elasticsearch is down or frozen is ready as soon as its ports are, and reports storage down
   * beside readiness.
   */
  public SextantServer start() {
    started.start("storage", storage::start, storage::close);
    // Probes storage on a thread of its own: a frozen Elasticsearch must not hold up the keeper.
    ScheduledExecutorService storageProbe = started.scheduler("storage-probe");
    Future<?> unusedProbe = storageProbe.scheduleWithFixedDelay(readiness::probeStorage, 0, 5, TimeUnit.SECONDS);
    // Stopping the flusher is the final write of what was accepted: after the receivers, before storage.
    started.start("flusher", flusher::start, this::finalWrite);
    ScheduledExecutorService keeper = started.scheduler("keeper");
    shippedTemplates = new ShippedTemplates(query, keeper).install();
    // Runs until the keeper stops; nothing waits on it, so its future is not kept.
    Future<?> unused = keeper.scheduleWithFixedDelay(this::expire, 1, 1, TimeUnit.MINUTES);
    // Re-reads certificates and credentials on a thread of its own: retention work must not delay a rotation.
    int checkSeconds = securityConfig.fileCheckSeconds();
    Future<?> unusedCheck = started.scheduler("file-check").scheduleWithFixedDelay(security::refresh, checkSeconds,
        checkSeconds, TimeUnit.SECONDS);
    ThreadPoolExecutor expressionPool = QueryPools.expressions(queryConfig.expressionThreads());
    started.start("expression-pool", () -> {}, expressionPool::shutdownNow);
    GraphqlExchange exchange = new GraphqlExchange(graphql(expressionPool));
    GrpcServiceBuilder grpc = grpcServices();
    started.start("processes", processes::start, processes::close);
    StorageRecordWriter records = new StorageRecordWriter(storage);
    for (ReceiverFactory factory : Plugins.RECEIVERS) {
      if (config.bool(factory.enabledKey())) {
        Receiver receiver = factory.create(
            new ReceiverContext(config, aggregator, records, registry, processes, profilingTasks));
        receivers.add(receiver);
        receiver.services().forEach(grpc::addService);
      }
    }
    for (Receiver receiver : receivers) {
      started.start("receiver " + receiver.name(), receiver::start, receiver::close);
    }
    ServerBuilder sb = serverBuilder();
    GrpcRoutes.install(sb, serverConfig.grpcPort(), grpc.build(), registry);
    CollectorRoster roster = new CollectorRoster(storage::management, coreConfig.collectorId(), advertisedHost(),
        serverConfig.grpcPort(), serverConfig.httpPort(), Clock.systemUTC(), ROSTER_BEAT);
    ThreadPoolExecutor queryPool = QueryPools.requests(queryConfig.threads(), queryConfig.maxQueuedRequests());
    started.start("query-pool", () -> {}, queryPool::shutdownNow);
    Gauge.builder("sextant_graphql_queued_requests", queryPool, p -> p.getQueue().size())
        .description("GraphQL requests waiting for a query thread (query.threads, query.maxQueuedRequests)")
        .register(registry);
    HttpRoutes.install(sb, serverConfig.httpPort(), exchange, serverConfig.requestTimeout(), registry, readiness,
        security, alarms.status(advertisedHost() + "_" + serverConfig.grpcPort()),
        new ServerStatus(roster, storage::retention, config), queryPool, query.templates(),
        shippedTemplates.installed(), audit);
    Server server = sb.build();
    started.start("server", () -> listen(server), () -> stopServing(server));
    started.start("alarms", () -> alarms.start(checkSeconds), alarms::close);
    Membership membership = new Membership(roster, ROSTER_BEAT);
    membership.join(storageProbe, started); // storage I/O that may block: on the probe's thread, never the keeper's
    membership.compact(started, coreConfig.compaction(), storage, aggregator.catalog(), buckets,
        coreConfig.collectorId(), coreConfig.flusher().graceMinutes(), registry);
    awaitShippedTemplates();
    readiness.serving();
    LOG.info("Sextant {} started: gRPC receivers on {}:{}, GraphQL on {}://{}:{}/graphql (collector {})",
        VERSION, serverConfig.grpcHost(), serverConfig.grpcPort(), security.httpTls() ? "https" : "http",
        serverConfig.httpHost(), serverConfig.httpPort(), coreConfig.collectorId());
    LOG.info("who may talk to it: {}", security.summary());
    warmUp(exchange); // after the line above, so the log shows it runs once ready
    return this;
  }

  /** The GraphQL engine: the standard areas and the alarm rules, expressions run on {@code expressionPool}. */
  private GraphQL graphql(ThreadPoolExecutor expressionPool) {
    List<SchemaArea> areas = new ArrayList<>(SextantGraphql.standardAreas(query, alarms.queries(), queryConfig.limits(),
        VERSION, readiness::health, buckets.zone(), Clock.systemUTC(), expressionPool));
    areas.add(new AlarmRulesArea(alarms.rules(), alarms.engine()));
    return SextantGraphql.build(areas, queryConfig.limits(), queryConfig.maxCachedDocuments(), audit);
  }

  /** The gRPC port's services before the receivers': health, and the interceptors every call passes. */
  private GrpcServiceBuilder grpcServices() {
    GrpcServiceBuilder grpc = GrpcService.builder()
        .maxRequestMessageLength(serverConfig.maxGrpcMessageBytes())
        // Binary protobuf only: every client we serve speaks it, and JSON would need marshallers
        // for every message type (Envoy's Prometheus types have none).
        .supportedSerializationFormats(GrpcSerializationFormats.PROTO)
        .addService(new GrpcHealthService(readiness::check));
    int peerRate = serverConfig.maxMessagesPerSecondPerPeer();
    if (peerRate > 0) {
      grpc.intercept(new PeerMessageRate(peerRate, serverConfig.maxConnections(), registry));
    }
    return grpc.intercept(streams)
        // Added last, so it runs first: a refused call never counts as an open stream.
        .intercept(security.receivers());
  }

  /** Both ports, their connection limits and TLS. */
  private ServerBuilder serverBuilder() {
    ServerConfig c = serverConfig;
    ServerBuilder sb = Server.builder()
        .port(new InetSocketAddress(c.grpcHost(), c.grpcPort()), protocol(security.grpcTls()))
        .port(new InetSocketAddress(c.httpHost(), c.httpPort()), protocol(security.httpTls()))
        .maxRequestLength(c.maxHttpRequestBytes())
        .maxNumConnections(c.maxConnections())
        .http2MaxStreamsPerConnection(c.maxStreamsPerConnection())
        .maxConnectionAge(c.maxConnectionAge())
        // A sidecar's stream never ends on its own: PINGs find the peers that vanished mid-stream.
        .idleTimeout(c.idleTimeout())
        .pingInterval(c.pingInterval())
        // Armeria's connection gauges and refusals (armeria_server_connections and the like).
        .meterRegistry(registry)
        .requestTimeout(c.requestTimeout())
        // No quiet period: stop taking new requests at once, let in-flight ones finish.
        .gracefulShutdownTimeout(Duration.ZERO, c.shutdownGrace());
    if (security.tls() != null) {
      // Asked, not required, at the handshake: the routes that require one refuse with a reason,
      // and probes stay open; a certificate that is presented must be signed by the client CA.
      sb.tlsProvider(security.tls(), ServerTlsConfig.builder()
          .clientAuth(security.asksForClientCertificates() ? ClientAuth.OPTIONAL : ClientAuth.NONE).build());
    }
    return sb;
  }

  private void listen(Server server) {
    try {
      server.start().join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException("cannot listen on " + serverConfig.grpcHost() + ":" + serverConfig.grpcPort()
          + " (server.grpcPort) and " + serverConfig.httpHost() + ":" + serverConfig.httpPort() + " (server.httpPort): "
          + cause.getMessage(), cause);
    }
  }

  /**
   * Open client streams are ended at once with {@code UNAVAILABLE}, so clients reconnect elsewhere;
   * new requests are refused; unary calls in flight get {@code server.shutdownGraceSeconds}.
   */
  private void stopServing(Server server) {
    LOG.info("ended {} open client streams (UNAVAILABLE: reconnect elsewhere)", streams.drain());
    server.stop().join();
  }

  /**
   * Gives the shipped dashboards a moment to be in before ready, so that a healthy start serves them
   * at once; a storage that does not take them within {@value #TEMPLATES_GRACE_MILLIS} ms does not
   * hold the start any longer (they follow in the background).
   */
  private void awaitShippedTemplates() {
    try {
      shippedTemplates.installed().get(TEMPLATES_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      LOG.info("the shipped UI templates are not in yet (storage slow or away): they follow in the background");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Completes once the shipped dashboards are stored (tests wait for it). */
  public CompletableFuture<Void> shippedTemplatesInstalled() {
    return shippedTemplates.installed();
  }

  /**
   * Sextant's booster-ui dashboards and the Horizon templates of {@code horizonDir} (none when empty);
   * a Horizon file that cannot be used stops the start, naming it.
   */
  private static List<ShippedTemplate> shippedTemplates(String horizonDir) {
    List<ShippedTemplate> out = new ArrayList<>(io.sextant.core.management.ShippedTemplates.fromClasspath());
    if (!horizonDir.isBlank()) {
      try {
        out.addAll(HorizonTemplates.fromDirectory(Path.of(horizonDir)));
      } catch (IOException | IllegalArgumentException e) {
        throw new ConfigException(List.of("query.horizonTemplates: " + e.getMessage()));
      }
    }
    return List.copyOf(out);
  }

  /** The aggregator as configured, counting into {@code meters}, journaling to {@code journal}. */
  private static Aggregator aggregator(CoreConfig core, MetricCatalog catalog, TimeBuckets buckets,
      MeterRegistry meters, Journal journal) {
    return new Aggregator(catalog, RecordKindDispatcher.standard(core.maxCachedIds(),
        new ChildBudgets(core.maxEndpointsPerService(), core.maxInstancesPerService(), meters)), buckets,
        core.limits(), meters, journal);
  }

  /**
   * Warms up the query path on a thread of its own after the collector is ready: a warm-up never
   * holds readiness (a pod kept out of its Service costs more than a first dashboard's
   * milliseconds), and one that waits on storage only waits itself.
   */
  private void warmUp(GraphqlExchange exchange) {
    int seconds = queryConfig.warmUpSeconds();
    if (seconds == 0) {
      return;
    }
    // QueryWarmUp.run logs what stops it and throws nothing.
    Thread t = new Thread(() -> new QueryWarmUp(exchange, buckets.zone(), Clock.systemUTC(),
        Duration.ofSeconds(seconds), registry).run(), "sextant-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private static SessionProtocol protocol(boolean tls) {
    return tls ? SessionProtocol.HTTPS : SessionProtocol.HTTP;
  }

  /** The host this collector is reached at, as SkyWalking's status lists an OAP node ({@code host_port}). */
  private String advertisedHost() {
    String host = serverConfig.grpcHost();
    if (!host.equals("0.0.0.0") && !host.equals("::")) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostAddress();
    } catch (UnknownHostException e) {
      return coreConfig.collectorId();
    }
  }

  private void expire() {
    try {
      storage.applyRetention(buckets);
    } catch (RuntimeException e) {
      LOG.warn("expiring old data failed", e);
    }
  }

  /** The full names of the gRPC methods the receivers serve ({@code package.Service/Method}). */
  public List<String> receiverMethods() {
    return receivers.stream().flatMap(r -> r.services().stream())
        .flatMap(s -> s.getServiceDescriptor().getMethods().stream())
        .map(io.grpc.MethodDescriptor::getFullMethodName).sorted().toList();
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

  public Alarms alarms() {
    return alarms;
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
    long readinessSeconds = serverConfig.drainReadiness().toSeconds();
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
   * then stops what was started in reverse order: the receivers, then the final write of everything
   * accepted within {@code server.drainTimeoutSeconds}, then storage. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    readiness.draining();
    started.stopAll();
    LOG.info(allWritten ? "Sextant stopped; everything accepted was written"
        : "Sextant stopped; some accepted data was not written (see the warning above)");
  }

  /** The flusher's stop: writes what the receivers accepted, once they are closed. */
  private void finalWrite() {
    // The last word on what this collector took: its /metrics is gone with the port.
    LOG.info("records accepted by the receivers: {}", FinalWrite.acceptedByReceiver(registry));
    allWritten = FinalWrite.run(flusher, aggregator, serverConfig.drainTimeout());
  }
}
