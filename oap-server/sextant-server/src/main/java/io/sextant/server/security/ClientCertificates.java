package io.sextant.server.security;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/** Mutual TLS on the HTTP port: every path but the probes needs a verified client certificate. */
public final class ClientCertificates {
  private static final Set<String> PROBES = Set.of("/healthz", "/readyz", "/healthcheck");

  private ClientCertificates() {}

  public static DecoratingHttpServiceFunction requiredExceptProbes(MeterRegistry registry) {
    return (delegate, ctx, req) -> {
      if (PROBES.contains(ctx.path()) || verified(ctx.sslSession())) {
        return delegate.serve(ctx, req);
      }
      registry.counter("sextant_http_unauthenticated", "reason", "no_client_certificate").increment();
      return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8,
          "this port asks for a client certificate signed by its client CA (mutual TLS, tls.clientCaFile)");
    };
  }

  static boolean verified(SSLSession session) {
    if (session == null) {
      return false;
    }
    try {
      return session.getPeerCertificates().length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }
}
