package io.sextant.server.security;

import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Asks every receiver call for what the configuration requires before it starts: a token in the
 * {@code authentication} metadata, as SkyWalking's Java and Go agents, Satellite and Rover send it
 * from their {@code authentication} setting (and Envoy from {@code initial_metadata}), and, under
 * mutual TLS, a verified client certificate. A refusal is {@code UNAUTHENTICATED} with the reason,
 * counted by service and reason; tokens are never logged. The gRPC health service stays open for
 * probes. A stream already open keeps going when tokens change.
 */
public final class ReceiverAuthentication implements ServerInterceptor {
  static final Metadata.Key<String> TOKEN = Metadata.Key.of("authentication", Metadata.ASCII_STRING_MARSHALLER);
  private static final String HEALTH = "grpc.health.v1.Health";
  private final Supplier<Tokens> tokens;
  /** Set once at start: a tokens file emptied later refuses every call instead of opening the port. */
  private final boolean tokenRequired;
  private final Set<String> withoutToken;
  private final boolean clientCertificates;
  private final MeterRegistry registry;

  ReceiverAuthentication(Supplier<Tokens> tokens, boolean tokenRequired, Set<String> withoutToken,
      boolean clientCertificates, MeterRegistry registry) {
    this.tokens = tokens;
    this.tokenRequired = tokenRequired;
    this.withoutToken = Set.copyOf(withoutToken);
    this.clientCertificates = clientCertificates;
    this.registry = registry;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String service = call.getMethodDescriptor().getServiceName();
    if (HEALTH.equals(service)) {
      return next.startCall(call, headers);
    }
    String refusal = refusal(headers, service);
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    registry.counter("sextant_receiver_unauthenticated", "service", String.valueOf(service), "reason", refusal)
        .increment();
    call.close(Status.UNAUTHENTICATED.withDescription(message(refusal)), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /** Why the call may not start (a counter label), or null. */
  private String refusal(Metadata headers, String service) {
    if (clientCertificates && !hasVerifiedPeer()) {
      return "no_client_certificate";
    }
    if (!tokenRequired || withoutToken.contains(service)) {
      return null;
    }
    Tokens valid = tokens.get();
    String presented = headers.get(TOKEN);
    if (presented == null || presented.isEmpty()) {
      return "missing_token";
    }
    return valid.matches(presented) ? null : "wrong_token";
  }

  private static boolean hasVerifiedPeer() {
    return ClientCertificates.verified(ServiceRequestContext.current().sslSession());
  }

  private static String message(String refusal) {
    return switch (refusal) {
      case "missing_token" -> "this collector asks for a token: set the client's authentication setting"
          + " (gRPC metadata 'authentication'; agents, Satellite, Rover: authentication; Envoy: initial_metadata)";
      case "wrong_token" -> "the 'authentication' token is not one this collector accepts (auth.receiverTokens)";
      default -> "this collector asks for a client certificate signed by its client CA (mutual TLS, tls.clientCaFile)";
    };
  }
}
