package io.sextant.server.config;

import static io.sextant.api.config.ConfigKey.bool;
import static io.sextant.api.config.ConfigKey.integer;
import static io.sextant.api.config.ConfigKey.oneOf;
import static io.sextant.api.config.ConfigKey.optionalString;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import java.util.List;

/**
 * Who may talk to Sextant ({@code auth.*}, {@code tls.*}; docs/security.md), and how often the files
 * behind it are checked for changes ({@code server.fileCheckSeconds}). Texts are as configured (empty:
 * not set); {@code io.sextant.server.security.Security} parses them and checks the files.
 */
public record SecurityConfig(Auth auth, Tls tls, int fileCheckSeconds) {
  /** The {@code auth.*} keys. */
  public record Auth(String receiverTokens, String receiverTokensFile, String receiversWithoutToken,
      String usersFile, String editorTokens, String viewerTokens, String anonymous, String metricsToken,
      boolean browserLogin) {}

  /** The {@code tls.*} keys. */
  public record Tls(boolean grpc, boolean http, String certificateFile, String keyFile, String clientCaFile,
      boolean httpRequiresClientCertificate) {}

  public static final List<ConfigKey> KEYS = List.of(
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

  public static SecurityConfig load(Settings s) {
    return new SecurityConfig(
        new Auth(s.string("auth.receiverTokens"), s.string("auth.receiverTokensFile"),
            s.string("auth.receiversWithoutToken"), s.string("auth.usersFile"), s.string("auth.editorTokens"),
            s.string("auth.viewerTokens"), s.string("auth.anonymous"), s.string("auth.metricsToken"),
            s.bool("auth.browserLogin")),
        new Tls(s.bool("tls.grpc"), s.bool("tls.http"), s.string("tls.certificateFile"), s.string("tls.keyFile"),
            s.string("tls.clientCaFile"), s.bool("tls.httpRequiresClientCertificate")),
        s.integer("server.fileCheckSeconds"));
  }
}
