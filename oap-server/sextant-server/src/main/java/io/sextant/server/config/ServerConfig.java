package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.optionalString;
import static io.sextant.api.config.ConfigKey.string;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.time.Duration;
import java.util.List;

/**
 * The server's own configuration ({@code server.*}): listening, connections, readiness and stopping.
 * Declared beside its reader as {@code CoreConfig} and the plugins declare theirs; the security
 * files' check interval ({@code server.fileCheckSeconds}) is in {@link SecurityConfig}.
 */
public record ServerConfig(String grpcHost, String httpHost, int grpcPort, int httpPort, int maxGrpcMessageBytes,
    int maxHttpRequestBytes, Duration requestTimeout, int maxConnections, int maxStreamsPerConnection,
    int maxMessagesPerSecondPerPeer, Duration maxConnectionAge, Duration pingInterval, Duration idleTimeout,
    Duration shutdownGrace, Duration drainReadiness, int readyHighWaterPercent, Duration drainTimeout) {
  private static final String P = "server.";

  public static final List<ConfigKey> KEYS = List.of(
      string(P + "host", "0.0.0.0", "address to listen on"),
      optionalString(P + "grpcHost", "address of the gRPC port alone (empty: server.host)"),
      optionalString(P + "httpHost",
          "address of the HTTP port alone, e.g. 127.0.0.1 on a laptop (empty: server.host)"),
      integer(P + "grpcPort", 11800, 1, 65535, "gRPC port for receivers (SkyWalking's default)"),
      integer(P + "httpPort", 12800, 1, 65535, "HTTP port: /graphql, /metrics, /healthz, /readyz"),
      integer(P + "maxGrpcMessageBytes", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024,
          "largest gRPC message accepted on the wire; larger ones fail the stream with RESOURCE_EXHAUSTED"),
      integer(P + "maxHttpRequestBytes", 1024 * 1024, 1024, 64 * 1024 * 1024, "largest HTTP request body"),
      integer(P + "requestTimeoutSeconds", 30, 1, 3600, "timeout of one GraphQL request"),
      integer(P + "maxConnections", 20_000, 1, 1_000_000,
          "open connections on both ports together; past it new ones are closed at once"
              + " (armeria_server_connections shows how many are open)"),
      integer(P + "maxStreamsPerConnection", 1000, 1, 1_000_000,
          "concurrent streams (calls) one connection may have open (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS)"),
      integer(P + "maxMessagesPerSecondPerPeer", 0, 0, 100_000_000,
          "client-stream messages per second one address may send over all its streams; past it its streams are"
              + " read at that rate (the peer waits, nothing is refused or lost; counted in"
              + " sextant_grpc_throttled_messages_total); 0: no limit"),
      integer(P + "maxConnectionAgeSeconds", 0, 0, 86_400,
          "connections older than this are asked to go (GOAWAY) once their calls end, so clients reconnect"
              + " and new collectors get a share; 0: never"),
      integer(P + "pingIntervalSeconds", 30, 0, 3600,
          "a connection silent this long is sent an HTTP/2 PING; one that does not answer within as long again is"
              + " closed (a peer gone without a word: node lost, network cut), its streams ended; 0: never"),
      integer(P + "idleTimeoutSeconds", 120, 1, 86_400,
          "a connection without calls and without traffic this long is closed (must exceed the PING interval)"),
      integer(P + "shutdownGraceSeconds", 5, 0, 300, "how long in-flight requests may finish on shutdown"),
      integer(P + "drainReadinessSeconds", 5, 0, 300,
          "on SIGTERM, how long /readyz answers 503 while still serving, before streams are ended"),
      integer(P + "readyHighWaterPercent", 90, 1, 100,
          "/readyz answers 503 while the write queue (core.maxPendingMegabytes) is this full, and again 200"
              + " 10 points below (while rows wait in the spool's overflow: while the spool is this full);"
              + " storage health is not part of readiness"),
      integer(P + "drainTimeoutSeconds", 30, 1, 3600,
          "on stop, how long writing what was accepted may take; what is left is counted and logged"));

  /** Reads the keys; a port's own host left empty is {@code server.host}. */
  public static ServerConfig load(Settings s) {
    String host = s.string(P + "host");
    return new ServerConfig(orElse(s.string(P + "grpcHost"), host), orElse(s.string(P + "httpHost"), host),
        s.integer(P + "grpcPort"), s.integer(P + "httpPort"), s.integer(P + "maxGrpcMessageBytes"),
        s.integer(P + "maxHttpRequestBytes"), seconds(s, "requestTimeoutSeconds"), s.integer(P + "maxConnections"),
        s.integer(P + "maxStreamsPerConnection"), s.integer(P + "maxMessagesPerSecondPerPeer"),
        seconds(s, "maxConnectionAgeSeconds"), seconds(s, "pingIntervalSeconds"), seconds(s, "idleTimeoutSeconds"),
        seconds(s, "shutdownGraceSeconds"), seconds(s, "drainReadinessSeconds"),
        s.integer(P + "readyHighWaterPercent"), seconds(s, "drainTimeoutSeconds"));
  }

  private static String orElse(String host, String otherwise) {
    return host == null || host.isBlank() ? otherwise : host;
  }

  private static Duration seconds(Settings s, String key) {
    return Duration.ofSeconds(s.integer(P + key));
  }
}
