package io.sextant.server.http;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import com.linecorp.armeria.server.VirtualHostBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sextant.api.component.CheckResult;
import io.sextant.core.management.UiTemplates;
import io.sextant.query.graphql.WriteAudit;
import io.sextant.server.alarm.AlarmStatus;
import io.sextant.server.lifecycle.Readiness;
import io.sextant.server.security.ClientCertificates;
import io.sextant.server.security.HttpAuthentication;
import io.sextant.server.security.Security;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Supplier;

/**
 * What the HTTP port serves: GraphQL, the query console, self-metrics, the probes, SkyWalking's
 * health check, its status and debugging endpoints, and SkyWalking 11's template store.
 */
public final class HttpRoutes {
  private static final MediaType PROMETHEUS = MediaType.parse("text/plain; version=0.0.4; charset=utf-8");

  private HttpRoutes() {}

  /**
   * {@code requestTimeout} is the server's: a GraphQL request stops computing at four fifths of it
   * ({@link io.sextant.query.graphql.Deadline}), so that its answer, errors included, goes out in
   * time.
   */
  public static void install(ServerBuilder sb, int httpPort, GraphqlExchange exchange, Duration requestTimeout,
      PrometheusMeterRegistry registry, Readiness readiness, Security security, AlarmStatus alarms,
      ServerStatus server, ThreadPoolExecutor queries, UiTemplates templates, CompletableFuture<Void> shippedTemplates,
      WriteAudit audit) {
    String console = consolePage();
    UiManagementService templateStore = new UiManagementService(templates, shippedTemplates, security.http(), audit);
    VirtualHostBuilder host = sb.virtualHost(httpPort);
    if (security.httpRequiresClientCertificate()) {
      host.decorator(ClientCertificates.requiredExceptProbes(registry));
    }
    host
        .service("/graphql", new GraphqlHttpService(exchange, requestTimeout.multipliedBy(4).dividedBy(5), registry,
            security.http(), security.browserLogin(), queries))
        .service("/metrics", (ctx, req) -> security.metricsAllowed(req.headers().get(HttpHeaderNames.AUTHORIZATION))
            ? HttpResponse.of(HttpStatus.OK, PROMETHEUS, registry.scrape())
            : HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8,
                "/metrics asks for its token: Authorization: Bearer <auth.metricsToken>"))
        .serviceUnder("/status/alarm/", (ctx, req) -> read(req, security, ctx,
            () -> alarmStatus(ctx.decodedPath(), alarms)))
        .service("/status/cluster/nodes", (ctx, req) -> read(req, security, ctx, () -> json(server.clusterNodes())))
        .service("/status/config/ttl", (ctx, req) -> read(req, security, ctx, () ->
            wantsText(req) ? HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, server.ttlText())
                : json(server.ttlJson())))
        .service("/debugging/config/dump", (ctx, req) -> read(req, security, ctx, () -> json(server.configDump())))
        // SkyWalking 11's template store, where Horizon keeps its dashboards.
        .service(UiManagementService.PATH, templateStore)
        .serviceUnder(UiManagementService.PATH + "/", templateStore)
        // SkyWalking's health check, which its UI container waits for before it proxies anything.
        .service("/healthcheck", (ctx, req) -> {
          CheckResult h = readiness.health();
          return HttpResponse.of(h.ok() ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
              h.ok() ? "healthy" : h.detail());
        })
        .service("/healthz", (ctx, req) -> HttpResponse.of("ok"))
        .service("/readyz", (ctx, req) -> {
          CheckResult r = readiness.check();
          HttpStatus status = r.ok() ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE;
          String body = ctx.queryParam("verbose") != null ? readiness.verbose() : r.ok() ? "ready" : r.detail();
          return HttpResponse.of(status, MediaType.PLAIN_TEXT_UTF_8, body);
        })
        .service("/", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.HTML_UTF_8, console));
  }

  /**
   * A status read (alarms, cluster nodes, TTL, configuration): the caller authenticated as for
   * GraphQL, the answer computed off the event loop.
   */
  private static HttpResponse read(HttpRequest req, Security security, ServiceRequestContext ctx,
      Supplier<HttpResponse> answer) {
    HttpAuthentication.Outcome who = security.http().authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (who.caller() == null) {
      return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8, who.message());
    }
    return HttpResponse.of(CompletableFuture.supplyAsync(() -> {
      try {
        return answer.get();
      } catch (RuntimeException e) {
        // The roster and the retention are read from storage, which may be away.
        return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
            "cannot answer now: " + e.getMessage());
      }
    }, ctx.blockingTaskExecutor()));
  }

  private static HttpResponse json(String body) {
    return HttpResponse.of(HttpStatus.OK, MediaType.JSON_UTF_8, body);
  }

  /** SkyWalking answers its text form to a client that asks for text first (curl's default gets JSON). */
  private static boolean wantsText(HttpRequest req) {
    String accept = req.headers().get(HttpHeaderNames.ACCEPT);
    return accept != null && accept.startsWith("text/plain");
  }

  /**
   * SkyWalking's alarm runtime status: {@code rules}, {@code <ruleId>} or {@code
   * <ruleId>/<entityName>} after {@code /status/alarm/}.
   */
  private static HttpResponse alarmStatus(String path, AlarmStatus alarms) {
    String rest = path.substring("/status/alarm/".length());
    int slash = rest.indexOf('/');
    String rule = slash < 0 ? rest : rest.substring(0, slash);
    Optional<String> body = rule.equals("rules") && slash < 0 ? Optional.of(alarms.ruleList())
        : slash < 0 ? alarms.rule(rule)
        : alarms.entity(rule, rest.substring(slash + 1));
    return body.map(json -> HttpResponse.of(HttpStatus.OK, MediaType.JSON_UTF_8, json))
        .orElseGet(() -> HttpResponse.of(HttpStatus.NOT_FOUND, MediaType.PLAIN_TEXT_UTF_8,
            "no alarm rule '" + rule + "'"));
  }

  private static String consolePage() {
    try (InputStream in = HttpRoutes.class.getResourceAsStream("/console.html")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
