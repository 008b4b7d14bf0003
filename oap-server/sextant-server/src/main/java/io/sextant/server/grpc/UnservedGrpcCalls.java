package io.sextant.server.grpc;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a gRPC call to a service or method Sextant does not serve (e.g. Rover's
 * {@code SpanAttachedEventReportService}) with {@code UNIMPLEMENTED} naming it, as a gRPC server does, instead
 * of a bare HTTP 404 that clients report as a transport error. Counted under one method tag, since
 * the path is the client's choice; the path is logged at most once a minute.
 */
final class UnservedGrpcCalls implements HttpService {
  private static final Logger LOG = LoggerFactory.getLogger(UnservedGrpcCalls.class);
  private static final long LOG_INTERVAL_MILLIS = 60_000;

  private final Counter unserved;
  private final AtomicLong lastLog = new AtomicLong(Long.MIN_VALUE / 2);

  UnservedGrpcCalls(MeterRegistry registry) {
    this.unserved = registry.counter("sextant_grpc_streams", "method", "unserved", "status",
        Status.Code.UNIMPLEMENTED.name());
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, com.linecorp.armeria.common.HttpRequest req) {
    unserved.increment();
    String path = ctx.path();
    long now = System.currentTimeMillis();
    long last = lastLog.get();
    if (now - last >= LOG_INTERVAL_MILLIS && lastLog.compareAndSet(last, now)) {
      LOG.warn("a client called {}, which Sextant does not serve (answered UNIMPLEMENTED; logged once a minute)",
          path);
    }
    // Trailers-only: the status in the one HEADERS frame, which ends the stream (grpc-go needs that).
    return TrailersOnly.of(Status.Code.UNIMPLEMENTED, "Sextant does not serve " + path.substring(1));
  }
}
