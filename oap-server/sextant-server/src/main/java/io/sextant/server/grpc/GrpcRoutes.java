package io.sextant.server.grpc;

import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;

/**
 * What the gRPC port serves: the receivers' services, with streams that may stay open for as long
 * as a sidecar lives, each finished stream counted by method and status; anything else answers
 * {@code UNIMPLEMENTED} naming the method; a request cut off inside a message is refused, not
 * answered OK.
 */
public final class GrpcRoutes {
  private GrpcRoutes() {}

  public static void install(ServerBuilder sb, int grpcPort, GrpcService services, MeterRegistry registry) {
    // A sidecar keeps one stream open for as long as it lives: no deadline and no total size
    // for a stream (each message is still bounded by maxGrpcMessageBytes).
    sb.virtualHost(grpcPort).service(services, delegate -> (ctx, req) -> {
      ctx.clearRequestTimeout();
      ctx.setMaxRequestLength(0);
      // Only the callback matters (it counts the stream); the future it returns carries nothing.
      CompletableFuture<?> unusedCount = ctx.log().whenComplete().thenAccept(log -> countStream(registry,
          log.fullName(), log.responseCause(), log.responseTrailers().get("grpc-status"),
          log.responseHeaders().get("grpc-status")));
      // Only the service's own methods reach here, so the path is a bounded label.
      WholeGrpcMessages whole = new WholeGrpcMessages(req,
          registry.counter("sextant_grpc_truncated_messages", "method", ctx.path().substring(1)));
      return whole.answer(delegate.serve(ctx, whole));
    });
    // Anything else on the gRPC port: UNIMPLEMENTED naming the method, counted, instead of a 404.
    sb.virtualHost(grpcPort).serviceUnder("/", new UnservedGrpcCalls(registry));
  }

  /** Counts every finished gRPC stream by method and status, e.g. RESOURCE_EXHAUSTED for oversize. */
  private static void countStream(MeterRegistry registry, String method, Throwable cause, String trailerStatus,
      String headerStatus) {
    String code = trailerStatus != null ? trailerStatus : headerStatus;
    String status = code == null ? (cause == null ? "UNKNOWN" : "ABORTED")
        : io.grpc.Status.fromCodeValue(Integer.parseInt(code)).getCode().name();
    registry.counter("sextant_grpc_streams", "method", method == null ? "unknown" : method, "status", status)
        .increment();
  }
}
