package io.sextant.server.http;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.query.graphql.Deadline;
import io.sextant.server.security.HttpAuthentication;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * GraphQL over HTTP as SkyWalking's clients speak it: {@code POST} a JSON body {@code {query,
 * variables, operationName}} with {@code Content-Type: application/json}, answer {@code {data,
 * errors}}. Requests a browser sends from another site are refused. Execution runs off the event
 * loop.
 */
final class GraphqlHttpService implements HttpService {
  private final GraphqlExchange exchange;
  private final Timer answered;
  private final Timer failed;
  private final Timer refused;

  /** How long a request may compute: {@link Deadline}. */
  private final long computeNanos;

  private final HttpAuthentication authentication;
  private final MeterRegistry registry;
  /** Runs the requests: as many threads as cores, a bounded queue, refusing past it. */
  private final ThreadPoolExecutor queries;
  private final int queueCapacity;

  /** Whether a 401 asks a browser for a password too (auth.browserLogin). */
  private final boolean browserLogin;

  GraphqlHttpService(GraphqlExchange exchange, Duration computeFor, MeterRegistry registry,
      HttpAuthentication authentication, boolean browserLogin, ThreadPoolExecutor queries) {
    this.exchange = exchange;
    this.browserLogin = browserLogin;
    this.queries = queries;
    this.queueCapacity = queries.getQueue().remainingCapacity() + queries.getQueue().size();
    this.authentication = authentication;
    this.registry = registry;
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
    // Cross-site request forgery: a browser sends a text/plain or form POST to another site without
    // asking it first, with whatever credentials it holds for that site. A JSON body makes the
    // browser ask first (a CORS preflight, which Sextant never grants); a request the browser
    // marks as cross-site is refused whatever its type.
    if (!json(req.contentType())) {
      return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "content_type", "POST /graphql takes Content-Type:"
          + " application/json, not " + (req.contentType() == null ? "none" : req.contentType().nameWithoutParameters())
          + " (curl: -H 'Content-Type: application/json')");
    }
    String crossSite = crossSite(req.headers());
    if (crossSite != null) {
      return refuse(HttpStatus.FORBIDDEN, "cross_site", "a browser sent this request from another site ("
          + crossSite + "): Sextant answers GraphQL only to its own pages, a proxy in front of it, and clients"
          + " that are not browsers");
    }
    // On the query threads, never the event loop (a first bcrypt check takes tens of milliseconds),
    // nor Armeria's blocking executor: its 200 threads of CPU-bound queries starved the event loops,
    // and with them the probes. Past the queue, refused at once.
    CompletableFuture<HttpResponse> answer = new CompletableFuture<>();
    CompletableFuture<?> unusedRead = req.aggregate().handle((request, failure) -> {
      if (failure != null) {
        answer.completeExceptionally(failure);
        return null;
      }
      try {
        queries.execute(() -> {
          try {
            // The client gave up or the request timed out while it waited: no answer is awaited.
            answer.complete(ctx.isCancelled() ? HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE)
                : execute(request));
          } catch (Throwable t) {
            answer.completeExceptionally(t);
          }
        });
      } catch (RejectedExecutionException e) {
        answer.complete(refuse(HttpStatus.SERVICE_UNAVAILABLE, "busy", "too many queries in progress ("
            + queries.getMaximumPoolSize() + " running, " + queueCapacity + " waiting: query.threads,"
            + " query.maxQueuedRequests); retry later"));
      }
      return null;
    });
    return HttpResponse.of(answer);
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

  /**
   * 401 with the reason as a GraphQL error and a {@code Bearer} challenge: a {@code Basic} one
   * makes a browser ask for a password once and then send it with every request to this origin,
   * so it is added only when {@code auth.browserLogin} asks for it. swctl and curl send their Basic
   * credentials without being asked.
   */
  private HttpResponse unauthorized(String message) {
    ResponseHeadersBuilder headers = ResponseHeaders.builder(HttpStatus.UNAUTHORIZED);
    if (browserLogin) {
      headers.add(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"sextant\", charset=\"UTF-8\"");
    }
    return errorAnswer(headers.add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"sextant\""), message);
  }

  /** A request refused before it is read: the reason as a GraphQL error, counted by reason. */
  private HttpResponse refuse(HttpStatus status, String reason, String message) {
    registry.counter("sextant_graphql_refused_requests", "reason", reason).increment();
    return errorAnswer(ResponseHeaders.builder(status), message);
  }

  private static HttpResponse errorAnswer(ResponseHeadersBuilder headers,
      String message) {
    try {
      return HttpResponse.of(headers.contentType(MediaType.JSON_UTF_8).build(), HttpData.wrap(
          GraphqlExchange.JSON.writeValueAsBytes(GraphqlExchange.errors(message))));
    } catch (Exception e) {
      return HttpResponse.of(headers.build().status(), MediaType.PLAIN_TEXT_UTF_8, message);
    }
  }

  /** {@code application/json}, or another JSON type such as {@code application/graphql-response+json}. */
  static boolean json(MediaType type) {
    return type != null && type.type().equals("application")
        && (type.subtype().equals("json") || type.subtype().endsWith("+json"));
  }

  /**
   * Why a request comes from another site, or null. A browser's {@code Sec-Fetch-Site} (which no
   * page can set) decides when present: {@code cross-site} is refused; {@code same-origin},
   * {@code same-site} and {@code none} pass, so a proxy that rewrites {@code Host} (the UI's) keeps
   * working. Without it (an older browser), an {@code Origin} whose host and port differ from the
   * request's {@code X-Forwarded-Host} or {@code Host} is refused. Clients that are not browsers send
   * neither and pass.
   */
  static String crossSite(RequestHeaders headers) {
    String site = headers.get("sec-fetch-site");
    if (site != null) {
      return site.strip().equalsIgnoreCase("cross-site") ? "Sec-Fetch-Site: cross-site" : null;
    }
    String origin = headers.get(HttpHeaderNames.ORIGIN);
    if (origin == null) {
      return null;
    }
    String forwarded = headers.get("x-forwarded-host");
    String host = forwarded != null ? forwarded.split(",")[0].strip() : headers.authority();
    return sameHost(origin.strip(), host) ? null : "Origin: " + origin + ", Host: " + host;
  }

  /** Whether an {@code Origin} ({@code scheme://host[:port]}) names this host and port. */
  private static boolean sameHost(String origin, String host) {
    if (host == null || host.isEmpty()) {
      return false;
    }
    URI uri;
    try {
      uri = new URI(origin);
    } catch (URISyntaxException e) {
      return false; // "null" (a sandboxed page, a file) among others
    }
    if (uri.getScheme() == null || uri.getHost() == null) {
      return false;
    }
    int defaultPort = uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    URI target;
    try {
      target = new URI("x://" + host);
    } catch (URISyntaxException e) {
      return false;
    }
    if (target.getHost() == null) {
      return false;
    }
    int originPort = uri.getPort() < 0 ? defaultPort : uri.getPort();
    int hostPort = target.getPort() < 0 ? defaultPort : target.getPort();
    return uri.getHost().equalsIgnoreCase(target.getHost()) && originPort == hostPort;
  }
}
