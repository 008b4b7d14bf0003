package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.oneOf;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.StorageFactory;
import io.sextant.core.CoreConfig;
import java.util.ArrayList;
import java.util.List;

/** Every configuration key Sextant knows, with its default. docs/configuration.md lists them. */
public final class ConfigKeys {
  private ConfigKeys() {}

  /** The server's own keys: listening, readiness and stopping. */
  private static final List<ConfigKey> SERVER = List.of(
      string("server.host", "0.0.0.0", "address to listen on"),
      optionalString("server.grpcHost", "address of the gRPC port alone (empty: server.host)"),
      optionalString("server.httpHost",
          "address of the HTTP port alone, e.g. 127.0.0.1 on a laptop (empty: server.host)"),
      integer("server.grpcPort", 11800, 1, 65535, "gRPC port for receivers (SkyWalking's default)"),
      integer("server.httpPort", 12800, 1, 65535, "HTTP port: /graphql, /metrics, /healthz, /readyz"),
      integer("server.maxGrpcMessageBytes", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024,
          "largest gRPC message accepted on the wire; larger ones fail the stream with RESOURCE_EXHAUSTED"),
      integer("server.maxHttpRequestBytes", 1024 * 1024, 1024, 64 * 1024 * 1024, "largest HTTP request body"),
      integer("server.requestTimeoutSeconds", 30, 1, 3600, "timeout of one GraphQL request"),
      integer("server.maxConnections", 20_000, 1, 1_000_000,
          "open connections on both ports together; past it new ones are closed at once"
              + " (armeria_server_connections shows how many are open)"),
      integer("server.maxStreamsPerConnection", 1000, 1, 1_000_000,
          "concurrent streams (calls) one connection may have open (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS)"),
      integer("server.maxMessagesPerSecondPerPeer", 0, 0, 100_000_000,
          "client-stream messages per second one address may send over all its streams; past it its streams are"
              + " read at that rate (the peer waits, nothing is refused or lost; counted in"
              + " sextant_grpc_throttled_messages_total); 0: no limit"),
      integer("server.maxConnectionAgeSeconds", 0, 0, 86_400,
          "connections older than this are asked to go (GOAWAY) once their calls end, so clients reconnect"
              + " and new collectors get a share; 0: never"),
      integer("server.pingIntervalSeconds", 30, 0, 3600,
          "a connection silent this long is sent an HTTP/2 PING; one that does not answer within as long again is"
              + " closed (a peer gone without a word: node lost, network cut), its streams ended; 0: never"),
      integer("server.idleTimeoutSeconds", 120, 1, 86_400,
          "a connection without calls and without traffic this long is closed (must exceed the PING interval)"),
      integer("server.shutdownGraceSeconds", 5, 0, 300, "how long in-flight requests may finish on shutdown"),
      integer("server.drainReadinessSeconds", 5, 0, 300,
          "on SIGTERM, how long /readyz answers 503 while still serving, before streams are ended"),
      integer("server.readyHighWaterPercent", 90, 1, 100,
          "/readyz answers 503 while the write queue (core.maxPendingMegabytes) is this full, and again 200"
              + " 10 points below (while rows wait in the spool's overflow: while the spool is this full);"
              + " storage health is not part of readiness"),
      integer("server.drainTimeoutSeconds", 30, 1, 3600,
          "on stop, how long writing what was accepted may take; what is left is counted and logged"));

  private static final List<ConfigKey> QUERY = List.of(
      integer("query.maxDepth", 15, 2, 100, "deepest GraphQL selection"),
      integer("query.maxComplexity", 5000, 10, 1_000_000, "most fields in one GraphQL request"),
      integer("query.maxDurationPoints", 10080, 10, 1_000_000, "most time points in one queried duration"),
      integer("query.threads", 0, 0, 256,
          "threads running GraphQL requests (and checking their passwords); 0: the cores, at least 2. Bounded so"
              + " that the event loops, which answer the probes, always get a core"),
      integer("query.maxQueuedRequests", 256, 0, 100_000,
          "GraphQL requests waiting for a query thread; past them a request is refused 503 (too many queries in"
              + " progress)"),
      integer("query.expressionThreads", 4, 1, 256,
          "threads running the expressions of one request at once (1: one after another)"),
      integer("query.warmUpSeconds", 15, 0, 15,
          "after a start, once ready, run the mesh dashboards' queries in-process until their rounds stop getting"
              + " faster, at most this long, so the first person to open the UI meets less of a cold JVM; never"
              + " holds readiness; 0: off"),
      integer("query.maxCachedDocuments", 500, 0, 100_000,
          "GraphQL query texts (up to 16 KB each) kept parsed and validated; 0: parse every request"));

  /** Who may talk to Sextant: docs/security.md. */
  private static final List<ConfigKey> SECURITY = List.of(
      optionalString("auth.receiverTokens",
          "tokens the gRPC receivers accept in the 'authentication' metadata, comma-separated (several during a"
              + " rotation); empty, and no auth.receiverTokensFile: receivers ask for none"),
      optionalString("auth.receiverTokensFile", "a file of receiver tokens, one per line, re-read when it changes"),
      optionalString("auth.receiversWithoutToken",
          "gRPC services that take calls without a token, comma-separated (Istio's access-log and metrics service"
              + " settings cannot add metadata): envoy.service.accesslog.v3.AccessLogService and the like"),
      optionalString("auth.usersFile",
          "GraphQL users (bcrypt passwords) and tokens (SHA-256) with their roles, YAML, re-read when it changes"),
      optionalString("auth.editorTokens", "bearer tokens with the editor role (queries and writes), comma-separated"),
      optionalString("auth.viewerTokens", "bearer tokens with the viewer role (queries only), comma-separated"),
      oneOf("auth.anonymous", "auto", List.of("auto", "none", "viewer", "editor"),
          "what a GraphQL caller without credentials may do: auto is viewer when no user or token is configured,"
              + " none otherwise; editor (writes) only on a laptop"),
      optionalString("auth.metricsToken", "bearer token /metrics asks for (empty: /metrics is open)"),
      bool("auth.browserLogin", false,
          "a GraphQL 401 also carries a Basic challenge, so a browser asks for a user and password (booster-ui,"
              + " which has no login of its own); the browser then sends them with every request to this origin,"
              + " which /graphql's JSON-only and same-site checks keep from being forged"),
      bool("tls.grpc", false, "the gRPC port speaks TLS (tls.certificateFile, tls.keyFile)"),
      bool("tls.http", false, "the HTTP port speaks TLS (tls.certificateFile, tls.keyFile)"),
      optionalString("tls.certificateFile", "PEM certificate chain of both ports, re-read when it changes"),
      optionalString("tls.keyFile", "PEM private key (PKCS#8) of the certificate, re-read when it changes"),
      optionalString("tls.clientCaFile",
          "PEM CA certificates: a TLS gRPC port then asks every client for a certificate signed by one (mutual TLS);"
              + " HTTP clients may present one"),
      bool("tls.httpRequiresClientCertificate", false,
          "the TLS HTTP port also asks for a client certificate (probes /healthz, /readyz excepted)"),
      integer("server.fileCheckSeconds", 10, 1, 3600,
          "how often certificate, key, token and user files are checked for changes"));

  /** Alarms: docs/alarms.md. */
  private static final List<ConfigKey> ALARM = List.of(
      optionalString("alarm.settingsFile",
          "SkyWalking-format alarm rules and hooks (alarm-settings.yml), re-read when it changes; empty: the"
              + " alarm-settings.yml next to application.yml, else the distribution's config/alarm-settings.yml"),
      integer("alarm.evaluationIntervalSeconds", 5, 1, 60,
          "how often a collector looks for a newly closed minute to evaluate"),
      integer("alarm.settleSeconds", 10, 0, 600,
          "margin after the grace minutes and the closed-minute collection before a minute is evaluated, so that"
              + " every collector has stored it"),
      integer("alarm.maxEntitiesPerRule", 10_000, 1, 1_000_000,
          "entities one rule evaluates per minute; past it the rest are skipped and counted"),
      integer("alarm.maxAlarmedEntitiesPerRule", 1000, 1, 1_000_000,
          "entities one rule may have alarmed at once (each a document every collector shares); past it new ones"
              + " are counted, not alarmed"),
      integer("alarm.hookQueueSize", 1000, 1, 1_000_000,
          "hook deliveries queued or retrying at once; past it a delivery is dropped and counted"),
      integer("alarm.hookAttempts", 5, 1, 100, "attempts per hook call (backoff 1 s, doubling) on errors, 429, 5xx"),
      integer("alarm.hookTimeoutSeconds", 10, 1, 300, "connect and answer timeout of one hook call"),
      integer("alarm.takeoverSeconds", 120, 10, 86_400,
          "a delivery a collector claimed and did not finish this long ago is made by another"));

  /** Every key: the server's, the core's and the query side's, then each plugin's. */
  public static final List<ConfigKey> ALL = all();

  private static List<ConfigKey> all() {
    List<ConfigKey> keys = new ArrayList<>(SERVER);
    keys.addAll(CoreConfig.KEYS);
    keys.addAll(QUERY);
    keys.addAll(SECURITY);
    keys.addAll(ALARM);
    keys.add(oneOf("storage.selector", Plugins.STORAGE.get(0).name(),
        Plugins.STORAGE.stream().map(StorageFactory::name).toList(), "storage backend").withAlias("SEXTANT_STORAGE"));
    Plugins.STORAGE.forEach(f -> keys.addAll(f.keys()));
    Plugins.RECEIVERS.forEach(f -> keys.addAll(f.keys())); // each includes its receiver.<name>.enabled
    return List.copyOf(keys);
  }
}
