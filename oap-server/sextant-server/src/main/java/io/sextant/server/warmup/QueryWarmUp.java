package io.sextant.server.warmup;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.query.graphql.Caller;
import io.sextant.server.http.GraphqlExchange;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the query path a dashboard takes after a start, once the collector is ready (it never holds
 * readiness): the mesh service dashboard's expressions and the topology over the last 30 minutes,
 * for a few of the services stored, round after round until the rounds stop getting faster
 * ({@link WarmUpProgress}), a round is answered with errors, or the budget ({@code
 * query.warmUpSeconds}, at most 15 s) is spent; one round when no service is stored yet. A fresh
 * JVM answers its first dashboards several times slower than a warm one (classes loaded, code
 * compiled, the read cache and Elasticsearch's own caches empty); this pays part of that before the
 * first person opens the UI. Read-only, in-process and through the same {@link GraphqlExchange} as
 * HTTP requests: sent as JSON bodies, read by Jackson, answered as JSON bytes, so that the reading
 * of bodies, the coercion of variables and the writing of answers warm up with the engine.
 */
public final class QueryWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(QueryWarmUp.class);
  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm");
  private static final int SERVICES = 3;
  private static final List<String> DASHBOARD = List.of("service_cpm", "service_resp_time", "service_sla/100",
      "service_apdex/10000", "service_percentile{p='50,75,90,95,99'}", "avg(service_cpm)");
  private static final String VALUES = " { type error results { metric { labels { key value } }"
      + " values { id value } } }";

  private final GraphqlExchange exchange;
  private final Counter requests;
  private final Counter errors;
  private final ZoneId zone;
  private final Clock clock;
  private final Duration budget;
  private final Caller caller = new Caller("warm-up", Caller.Role.VIEWER);

  public QueryWarmUp(GraphqlExchange exchange, ZoneId zone, Clock clock, Duration budget, MeterRegistry registry) {
    this.exchange = exchange;
    this.requests = Counter.builder("sextant_query_warm_up_requests")
        .description("GraphQL requests the query warm-up made after the start (query.warmUpSeconds)")
        .register(registry);
    this.errors = Counter.builder("sextant_query_warm_up_errors")
        .description("warm-up requests answered with errors (the first is logged)").register(registry);
    this.zone = zone;
    this.clock = clock;
    this.budget = budget;
  }

  /** Runs until the rounds stop getting faster, a round fails or the budget is spent; returns the requests made. */
  public int run() {
    long started = System.nanoTime();
    int made = 0;
    try {
      Map<String, Object> duration = lastHalfHour();
      List<Map<String, Object>> services = services();
      // Nothing stored (a new installation): no read cache to fill, and the empty answers compile
      // little of what real ones take; one round loads the classes, then real traffic warms the rest.
      boolean nothingStored = services.isEmpty();
      if (nothingStored) {
        services = List.of(Map.of("name", "sextant-warm-up", "normal", true));
      }
      WarmUpProgress progress = new WarmUpProgress(started, budget);
      String why;
      while (true) {
        long round = System.nanoTime();
        why = progress.stopBefore(round);
        if (why != null) {
          break;
        }
        boolean failed = false;
        for (Map<String, Object> service : services) {
          failed |= execute(dashboard(), Map.of("entity", entity(service), "duration", duration)).withErrors();
        }
        failed |= execute("query ($d: Duration!) { getGlobalTopology(layer: \"MESH\", duration: $d) { nodes { id"
            + " name type isReal layers } calls { id source target detectPoints } } }", Map.of("d", duration))
            .withErrors();
        made += services.size() + 1;
        long now = System.nanoTime();
        progress.round(now - round, now);
        if (failed) {
          why = "a request was answered with errors";
          break;
        }
        if (nothingStored) {
          why = "no service is stored yet";
          break;
        }
      }
      LOG.info("warmed up the query path: {} rounds, {} requests in {} ms, stopped as {}; a round (the dashboards"
          + " and the topology) took {} ms at first, {} ms at the end", progress.rounds(), made,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), why, progress.firstMillis(),
          progress.lastMillis());
    } catch (RuntimeException e) {
      LOG.info("query warm-up stopped after {} requests: {}", made, e.toString());
    }
    return made;
  }

  private static String dashboard() {
    StringBuilder q = new StringBuilder("query ($entity: Entity!, $duration: Duration!) {");
    for (int i = 0; i < DASHBOARD.size(); i++) {
      q.append(" m").append(i).append(": execExpression(expression: \"").append(DASHBOARD.get(i))
          .append("\", entity: $entity, duration: $duration)").append(VALUES);
    }
    return q.append(" }").toString();
  }

  /** Up to {@link #SERVICES} mesh services stored. */
  private List<Map<String, Object>> services() {
    JsonNode listed = parsed(execute("{ listServices(layer: \"MESH\") { name normal } }", Map.of()))
        .path("data").path("listServices");
    List<Map<String, Object>> out = new ArrayList<>();
    for (JsonNode service : listed) {
      if (out.size() < SERVICES) {
        out.add(Map.of("name", service.path("name").asText(), "normal", service.path("normal").asBoolean()));
      }
    }
    return out;
  }

  private static Map<String, Object> entity(Map<String, Object> service) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("scope", "Service");
    e.put("serviceName", service.get("name"));
    e.put("normal", service.get("normal"));
    return e;
  }

  private Map<String, Object> lastHalfHour() {
    Instant now = clock.instant();
    return Map.of("start", MINUTE.format(now.minus(Duration.ofMinutes(29)).atZone(zone)),
        "end", MINUTE.format(now.atZone(zone)), "step", "MINUTE");
  }

  /** The request as a client sends it: a JSON body through the exchange. */
  private GraphqlExchange.Answer execute(String query, Map<String, Object> variables) {
    GraphqlExchange.Answer answer;
    try {
      answer = exchange.answer(GraphqlExchange.JSON.writeValueAsString(Map.of("query", query, "variables", variables)),
          System.nanoTime() + TimeUnit.SECONDS.toNanos(10), caller);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the warm-up's own request could not be written", e);
    }
    requests.increment();
    if (answer.withErrors()) {
      if (errors.count() == 0) {
        LOG.warn("a query warm-up request was answered with errors: {}",
            parsed(answer).path("errors").path(0).path("message").asText(new String(answer.body(), UTF_8)));
      }
      errors.increment();
    }
    return answer;
  }

  private static JsonNode parsed(GraphqlExchange.Answer answer) {
    try {
      return GraphqlExchange.JSON.readTree(answer.body());
    } catch (IOException e) {
      return MissingNode.getInstance(); // not JSON: a server error's text
    }
  }
}
