package io.sextant.server.assembly;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.query.graphql.Deadline;
import io.sextant.server.security.HttpAuthentication;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * GraphQL over HTTP as SkyWalking's clients speak it: {@code POST} a JSON body {@code {query,
 * variables, operationName}}, answer {@code {data, errors}}. Execution runs off the event loop.
 */
final class GraphqlHttpService implements HttpService {
  private final GraphqlExchange exchange;
  private final Timer answered;
  private final Timer failed;
  private final Timer refused;

  /** How long a request may compute: {@link Deadline}. */
  private final long computeNanos;

  private final HttpAuthentication authentication;

  GraphqlHttpService(GraphqlExchange exchange, Duration computeFor, MeterRegistry registry,
      HttpAuthentication authentication) {
    this.exchange = exchange;
    this.authentication = authentication;
    this.computeNanos = computeFor.toNanos();
    this.answered = timer(registry, "ok");
    this.failed = timer(registry, "error");
    this.refused = timer(registry, "bad_request");
  }

  /** Server-side time of one request, from its body to the serialized answer. */
  private static Timer timer(MeterRegistry registry, String outcome) {
    return Timer.builder("sextant_graphql_request_duration").tag("outcome", outcome)
        .description("one GraphQL request: ok, error (the answer carries GraphQL errors) or bad_request")
        .publishPercentiles(0.5, 0.95, 0.99).publishPercentileHistogram().register(registry);
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    if (req.method() != HttpMethod.POST) {
      return HttpResponse.of(HttpStatus.METHOD_NOT_ALLOWED, MediaType.PLAIN_TEXT_UTF_8,
          "POST a JSON body {\"query\": ..., \"variables\": {...}}");
    }
    // Off the event loop too: a first bcrypt check takes tens of milliseconds.
    return HttpResponse.of(req.aggregate().thenApplyAsync(this::execute, ctx.blockingTaskExecutor()));
  }

  private HttpResponse execute(AggregatedHttpRequest req) {
    HttpAuthentication.Outcome who = authentication.authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (who.caller() == null) {
      return unauthorized(who.message());
    }
    long started = System.nanoTime();
    Timer outcome = refused;
    try {
      GraphqlExchange.Answer answer = exchange.answer(req.contentUtf8(), started + computeNanos, who.caller());
      outcome = answer.status() == HttpStatus.BAD_REQUEST ? refused : answer.withErrors() ? failed : answered;
      return HttpResponse.of(answer.status(), answer.type(), answer.body());
    } finally {
      outcome.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }

  /** 401 with the challenges a client may answer, and the reason as a GraphQL error. */
  private static HttpResponse unauthorized(String message) {
    try {
      ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.UNAUTHORIZED).contentType(MediaType.JSON_UTF_8)
          .add(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"sextant\", charset=\"UTF-8\"")
          .add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"sextant\"").build();
      return HttpResponse.of(headers, HttpData.wrap(GraphqlExchange.JSON.writeValueAsBytes(
          GraphqlExchange.errors(message))));
    } catch (Exception e) {
      return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8, message);
    }
  }
}
