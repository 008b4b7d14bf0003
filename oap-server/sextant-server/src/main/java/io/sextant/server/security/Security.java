package io.sextant.server.security;

import com.linecorp.armeria.common.TlsProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.query.graphql.Caller.Role;
import io.sextant.server.config.SecurityConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the {@code auth.*} and {@code tls.*} settings ask for, built once at start: the
 * receivers' token check, the HTTP port's users and roles, the /metrics token, the ports'
 * certificates. {@link #refresh()} re-reads the files behind them (token file, users file,
 * certificates) when they change; a file that cannot be used keeps the last good content in use.
 * At start, a file that cannot be used stops the start with a message naming it.
 */
public final class Security {
  private static final Logger LOG = LoggerFactory.getLogger(Security.class);
  private final Tokens settingReceiverTokens;
  private final WatchedFile receiverTokensFile;
  private volatile Tokens receiverTokens;
  private final Tokens editorTokens;
  private final Tokens viewerTokens;
  private final WatchedFile usersFile;
  private volatile HttpUsers users;
  private final Tokens metricsToken;
  private final ReloadingTls tls;
  private final boolean grpcTls;
  private final boolean httpTls;
  private final boolean httpClientCertificates;
  private final ReceiverAuthentication receiverAuthentication;
  private final HttpAuthentication httpAuthentication;
  private final boolean browserLogin;

  public Security(SecurityConfig config, MeterRegistry registry) {
    SecurityConfig.Auth auth = config.auth();
    settingReceiverTokens = Tokens.parse(auth.receiverTokens(), "auth.receiverTokens");
    receiverTokensFile = file(auth.receiverTokensFile());
    receiverTokens = settingReceiverTokens;
    editorTokens = Tokens.parse(auth.editorTokens(), "auth.editorTokens");
    viewerTokens = Tokens.parse(auth.viewerTokens(), "auth.viewerTokens");
    usersFile = file(auth.usersFile());
    users = HttpUsers.NONE.withTokens(editorTokens, viewerTokens);
    metricsToken = Tokens.parse(auth.metricsToken(), "auth.metricsToken");
    browserLogin = auth.browserLogin();
    grpcTls = config.tls().grpc();
    httpTls = config.tls().http();
    httpClientCertificates = config.tls().httpRequiresClientCertificate();
    if (grpcTls || httpTls) {
      tls = new ReloadingTls(required(config.tls().certificateFile(), "tls.certificateFile"),
          required(config.tls().keyFile(), "tls.keyFile"), config.tls().clientCaFile());
    } else {
      tls = null;
    }
    if (httpClientCertificates && (!httpTls || !tls.asksForClientCertificates())) {
      throw new IllegalArgumentException("tls.httpRequiresClientCertificate needs tls.http=true and tls.clientCaFile");
    }
    try {
      readFiles();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    Set<String> withoutToken = Set.copyOf(Tokens.split(auth.receiversWithoutToken()));
    receiverAuthentication = new ReceiverAuthentication(() -> receiverTokens, receiverTokenRequired(),
        withoutToken, grpcTls && tls.asksForClientCertificates(), registry);
    httpAuthentication = new HttpAuthentication(() -> users, auth.anonymous(), usersFile != null,
        registry);
  }

  private static WatchedFile file(String path) {
    return path.isBlank() ? null : new WatchedFile(path);
  }

  private static String required(String value, String key) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(key + " is required when tls.grpc or tls.http is on");
    }
    return value;
  }

  /** Re-reads what changed; called every {@code server.fileCheckSeconds}. Never throws. */
  public void refresh() {
    try {
      readFiles();
    } catch (IOException | RuntimeException e) {
      LOG.warn("a security file changed but cannot be used, keeping the last good one: {}", e.getMessage());
    }
    if (tls != null) {
      tls.refresh();
    }
  }

  private void readFiles() throws IOException {
    if (receiverTokensFile != null) {
      byte[] text = receiverTokensFile.changed();
      if (text != null) {
        receiverTokens = settingReceiverTokens.and(Tokens.parse(new String(text, StandardCharsets.UTF_8),
            "auth.receiverTokensFile"));
        LOG.info("receiver tokens read from {}", receiverTokensFile.path());
      }
    }
    if (usersFile != null) {
      byte[] yaml = usersFile.changed();
      if (yaml != null) {
        users = HttpUsers.parse(yaml, usersFile.path().toString()).withTokens(editorTokens, viewerTokens);
        LOG.info("GraphQL users and tokens read from {}: {} users", usersFile.path(), users.users().size());
      }
    }
  }

  public ReceiverAuthentication receivers() {
    return receiverAuthentication;
  }

  public HttpAuthentication http() {
    return httpAuthentication;
  }

  /**
   * Whether a 401 asks browsers for a user and password ({@code Basic}), so that a UI without a
   * login of its own (booster-ui) can be used with users; {@code auth.browserLogin}, off by default.
   */
  public boolean browserLogin() {
    return browserLogin;
  }

  /** Whether {@code /metrics} asks for a token, and if so whether this {@code Authorization} carries it. */
  public boolean metricsAllowed(String authorization) {
    if (metricsToken.isEmpty()) {
      return true;
    }
    if (authorization == null) {
      return false;
    }
    String token = HttpAuthentication.Authorization.parse(authorization).bearerToken();
    return token != null && metricsToken.matches(token);
  }

  /** The certificates of the TLS ports, or null when no port speaks TLS. */
  public TlsProvider tls() {
    return tls;
  }

  public boolean grpcTls() {
    return grpcTls;
  }

  public boolean httpTls() {
    return httpTls;
  }

  /** Whether the TLS ports ask clients for a certificate (a client CA is set). */
  public boolean asksForClientCertificates() {
    return tls != null && tls.asksForClientCertificates();
  }

  public boolean httpRequiresClientCertificate() {
    return httpClientCertificates;
  }

  /** Set once at start: a tokens file emptied later refuses every call instead of opening the port. */
  private boolean receiverTokenRequired() {
    return receiverTokensFile != null || !settingReceiverTokens.isEmpty();
  }

  /** One line for the start log: what is asked of callers (never a secret). */
  public String summary() {
    return String.format("receivers: %s; GraphQL: %s, anonymous callers %s; TLS: gRPC %s, HTTP %s%s",
        receiverTokenRequired() ? "token" : "no token",
        users.isEmpty() ? "no users or tokens" : "users and tokens configured",
        describe(httpAuthentication.anonymousRole(users)), grpcTls ? "on" : "off", httpTls ? "on" : "off",
        asksForClientCertificates() ? " (client certificates asked for)" : "");
  }

  private static String describe(Role role) {
    return role == null ? "refused" : role == Role.EDITOR ? "may write" : "may read";
  }
}
