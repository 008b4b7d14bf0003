package io.sextant.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * GraphQL query latency against a running Sextant server, with the queries SkyWalking's UI sends
 * for a mesh dashboard over the last {@code --minutes} minutes (step MINUTE):
 *
 * <ul>
 *   <li>{@code topology}: {@code getServicesTopology} over every service of {@code --layer}, with
 *       the selection set of the UI's topology view;
 *   <li>{@code global-topology}: {@code getGlobalTopology} of {@code --layer}, same selection set;
 *   <li>{@code expression}: {@code execExpression} of {@code service_cpm}, {@code
 *       service_percentile{p='50,75,90,95,99'}} and {@code service_resp_time} (or only {@code
 *       --expression}), cycling over the services of the layer (or only {@code --service});
 *   <li>{@code dashboard} (alone): one request per service with the first {@code --dashboard-size}
 *       of the {@link #DASHBOARD} expressions as aliased {@code execExpression} fields, as the UI asks
 *       for a service dashboard's widgets;
 *   <li>{@code version}: {@code { version }}, the cheapest request the server answers (HTTP, the
 *       caller's check, GraphQL and JSON, no data): what any request waits for on this machine.
 * </ul>
 *
 * <p>The window ends at the server's current minute, or at {@code --end} (a fixed, closed minute:
 * the same data however long the measurement runs).
 *
 * <p>{@code --concurrency} client threads send requests back to back (one HTTP/1.1 client, so one
 * connection per busy thread), the kinds interleaved. Requests that start during {@code --warmup}
 * are checked but not measured. Every answer must be HTTP 200 without a top-level {@code errors}
 * entry (an expression answer must also have no {@code error}, a topology answer at least one node);
 * latencies of good answers go into one HdrHistogram per kind. Durations are written in the
 * server's time zone and clock ({@code getTimeInfo}).
 *
 * <p>Run with {@code --help} for the options. Exit status: 0 if every request succeeded, 1 if any
 * failed, 2 on bad options, an unreachable server or a layer without services.
 */
public final class QueryLoad {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The UI's topology query (topology.graphqls, SkyWalking 10.1). */
  static final String TOPOLOGY_QUERY = "query queryServicesTopo($ids: [ID!]!, $duration: Duration!) {"
      + " topology: getServicesTopology(serviceIds: $ids, duration: $duration) {"
      + " nodes { id name type isReal layers }"
      + " calls { id source target detectPoints sourceComponents targetComponents } } }";

  /** One MQE expression for one entity (metrics-v3.graphqls). */
  static final String EXPRESSION_QUERY = "query queryExpression($expression: String!, $entity: Entity!,"
      + " $duration: Duration!) {"
      + " result: execExpression(expression: $expression, entity: $entity, duration: $duration) {"
      + " type error results { metric { labels { key value } } values { id value traceID } } } }";

  /** What booster-ui 10.2+ selects on every MQE value besides 10.1's fields. */
  static final String OWNER_SELECTION = " owner { scope serviceID serviceName normal serviceInstanceID"
      + " serviceInstanceName endpointID endpointName }";

  /** The query as the UI version of {@code --ui} sends it: 10.4 selects each value's owner. */
  static String asUi(String query, String ui) {
    return ui.equals("10.4") ? query.replace("values { id value traceID }", "values { id value traceID"
        + OWNER_SELECTION + " }") : query;
  }

  static final List<String> EXPRESSIONS = List.of(
      "service_cpm", "service_percentile{p='50,75,90,95,99'}", "service_resp_time");

  /** A mesh service dashboard's widgets (SkyWalking's UI templates), asked for in one request. */
  static final List<String> DASHBOARD = List.of(
      "service_cpm", "service_resp_time", "service_sla/100", "service_apdex/10000",
      "service_percentile{p='50,75,90,95,99'}", "service_sidecar_internal_req_latency_nanos",
      "service_sidecar_internal_resp_latency_nanos", "avg(service_cpm)");

  /** The cheapest request: the server's version (common.graphqls). */
  static final String VERSION_QUERY = "{ version }";

  /** The UI's global topology query (topology.graphqls, SkyWalking 10.1). */
  static final String GLOBAL_TOPOLOGY_QUERY = "query queryGlobalTopo($layer: String, $duration: Duration!) {"
      + " topology: getGlobalTopology(layer: $layer, duration: $duration) {"
      + " nodes { id name type isReal layers }"
      + " calls { id source target detectPoints sourceComponents targetComponents } } }";

  private final Options o;
  private final HttpClient client;
  private Kind dashboard;
  /** The dashboard's expressions: the first {@code --dashboard-size} of {@link #DASHBOARD}. */
  private List<String> dashboardExpressions;
  private String dashboardQuery;
  private final String expressionQuery;
  private final URI endpoint;
  private final Duration timeout;
  private ZoneId zone;
  private DateTimeFormatter minuteFormat;
  /** Server clock minus ours, from getTimeInfo. */
  private long clockSkewMillis;
  private final List<Kind> kinds = new ArrayList<>();
  private Kind topology;
  private Kind globalTopology;
  private Kind version;
  /** In {@link #cycle}, the place of the next expression kind. */
  private static final Kind EXPRESSION_SLOT = new Kind("expression", null);
  /** The non-dashboard kinds' request cycle: topology, global topology, one expression (each if asked for). */
  private final List<Kind> cycle = new ArrayList<>();
  private final List<Kind> expressionKinds = new ArrayList<>();
  private List<Service> services;
  private List<String> serviceIds;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong done = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong warmupRequests = new AtomicLong();
  private final AtomicLong warmupErrors = new AtomicLong();
  private final AtomicLong workerDeaths = new AtomicLong();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final Map<String, Boolean> described = new ConcurrentHashMap<>();
  private volatile long measureStart;
  private volatile long measureEnd;
  /** With --restart: the server's readiness, followed across its restart. */
  private RestartWatch watch;

  record Service(String id, String name, boolean normal) {
    /** The service as an MQE {@code Entity} variable. */
    Map<String, Object> entity() {
      Map<String, Object> entity = new LinkedHashMap<>();
      entity.put("serviceName", name);
      entity.put("normal", normal);
      entity.put("scope", "Service");
      return entity;
    }
  }

  /** The dashboard request: each expression as field {@code w<i>}. */
  static String dashboardQuery(List<String> expressions) {
    StringBuilder q = new StringBuilder("query dashboard($entity: Entity!, $duration: Duration!) {");
    for (int i = 0; i < expressions.size(); i++) {
      q.append(" w").append(i).append(": execExpression(expression: \"")
          .append(expressions.get(i)).append("\", entity: $entity, duration: $duration)")
          .append(" { type error results { metric { labels { key value } } values { id value traceID } } }");
    }
    return q.append(" }").toString();
  }

  /** One kind of request: its own latency histogram and counters (merged from the workers'). */
  static final class Kind {
    final String name;
    /** For expression kinds, the MQE expression. */
    final String expression;

    Kind(String name, String expression) {
      this.name = name;
      this.expression = expression;
    }
  }

  /** What one worker measured for one kind. */
  static final class Stats {
    final Histogram nanos = new Histogram(3);
    long requests;
    long errors;
    long bytes;
    /** Expression answers whose values are all null (no data in the window). */
    long empty;
    long minNodes = Long.MAX_VALUE;
    long maxNodes = -1;
    long minCalls = Long.MAX_VALUE;
    long maxCalls = -1;
    String firstError;
    /** Services whose expression answers had no value. */
    final java.util.Set<String> emptyServices = new java.util.TreeSet<>();

    void add(Stats s) {
      emptyServices.addAll(s.emptyServices);
      nanos.add(s.nanos);
      requests += s.requests;
      errors += s.errors;
      bytes += s.bytes;
      empty += s.empty;
      minNodes = Math.min(minNodes, s.minNodes);
      maxNodes = Math.max(maxNodes, s.maxNodes);
      minCalls = Math.min(minCalls, s.minCalls);
      maxCalls = Math.max(maxCalls, s.maxCalls);
      if (firstError == null) {
        firstError = s.firstError;
      }
    }
  }

  private QueryLoad(Options o) {
    this.o = o;
    this.expressionQuery = asUi(EXPRESSION_QUERY, o.string("ui"));
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    this.endpoint = URI.create("http://" + o.string("http") + "/graphql");
    this.timeout = Duration.ofSeconds(o.integer("timeout"));
  }

  public static void main(String[] args) throws Exception {
    System.exit(execute(args));
  }

  /** Runs with these options; the exit status. */
  static int execute(String... args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    return new QueryLoad(options).run();
  }

  private int run() throws Exception {
    System.out.println("Sextant query load: " + o.summary());
    for (String q : java.util.Arrays.stream(o.string("queries").split(",")).map(String::trim).distinct().toList()) {
      switch (q) {
        case "topology" -> {
          topology = new Kind("topology", null);
          kinds.add(topology);
          cycle.add(topology);
        }
        case "global-topology" -> {
          globalTopology = new Kind("global-topology", null);
          kinds.add(globalTopology);
          cycle.add(globalTopology);
        }
        case "version" -> {
          version = new Kind("version", null);
          kinds.add(version);
          cycle.add(version);
        }
        case "expression" -> {
          cycle.add(EXPRESSION_SLOT);
          List<String> expressions = o.string("expression").isEmpty() ? EXPRESSIONS : List.of(o.string("expression"));
          for (String e : expressions) {
            Kind k = new Kind(e.contains("{") ? e.substring(0, e.indexOf('{')) : e, e);
            expressionKinds.add(k);
            kinds.add(k);
          }
        }
        case "dashboard" -> {
          dashboardExpressions = DASHBOARD.subList(0, o.integer("dashboard-size"));
          dashboardQuery = asUi(dashboardQuery(dashboardExpressions), o.string("ui"));
          dashboard = new Kind("dashboard-" + dashboardExpressions.size(), null);
          kinds.add(dashboard);
        }
        default -> {
          System.err.println("--queries takes topology, global-topology, version and/or expression, or dashboard, "
              + "got '" + q + "'");
          return 2;
        }
      }
    }
    if (dashboard != null && kinds.size() > 1) {
      System.err.println("--queries=dashboard runs alone");
      return 2;
    }

    String setupError = setUp();
    if (setupError != null) {
      System.err.println(setupError);
      return 2;
    }

    long serverPid = o.serverPid();
    int threads = o.integer("concurrency");
    long start = System.nanoTime();
    long restartDeadline = start + TimeUnit.SECONDS.toNanos(o.integer("warmup"));
    if (o.bool("restart")) {
      // Measured from the moment the restarted server is ready: its first answers, this client warm.
      measureStart = Long.MAX_VALUE;
      measureEnd = Long.MAX_VALUE;
      watch = new RestartWatch(o.string("http"), () -> {
        long back = System.nanoTime();
        measureEnd = back + TimeUnit.SECONDS.toNanos(o.integer("duration"));
        measureStart = back;
        System.out.printf(Locale.ROOT, "[%4.1fs] the server is ready again: measuring%n", (back - start) / 1e9);
      }).start();
    } else {
      measureStart = restartDeadline;
      measureEnd = measureStart + TimeUnit.SECONDS.toNanos(o.integer("duration"));
    }
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Worker w = new Worker(i);
      workers.add(w);
      w.start();
    }

    long clientPid = ProcessHandle.current().pid();
    long rssBefore = ServerStats.rssBytes(serverPid);
    long cpuBefore = ServerStats.cpuNanos(serverPid);
    long clientCpuBefore = ServerStats.cpuNanos(clientPid);
    long peakRss = rssBefore;
    boolean measuring = o.integer("warmup") == 0;
    long lastDone = 0;
    long lastTick = start;
    int report = o.integer("report");
    for (int second = 1; ; second++) {
      long wake = start + TimeUnit.SECONDS.toNanos(second);
      long now;
      while ((now = System.nanoTime()) < wake) {
        TimeUnit.NANOSECONDS.sleep(wake - now);
      }
      if (watch != null && !watch.back() && now >= restartDeadline) {
        System.out.println("the server did not restart within --warmup=" + o.integer("warmup") + " s");
        return 1;
      }
      if (!measuring && now >= measureStart) {
        measuring = true;
        if (!o.string("server-pid-file").isEmpty()) {
          serverPid = Long.parseLong(Files.readString(Path.of(o.string("server-pid-file"))).trim());
        }
        rssBefore = ServerStats.rssBytes(serverPid);
        cpuBefore = ServerStats.cpuNanos(serverPid);
        clientCpuBefore = ServerStats.cpuNanos(clientPid);
      }
      peakRss = Math.max(peakRss, ServerStats.rssBytes(serverPid));
      if (second % report == 0 || now >= measureEnd) {
        long d = done.get();
        System.out.printf(Locale.ROOT, "[%4ds] %s %,8.1f req/s, %,d requests, %,d failed%s%n", second,
            now < measureStart ? "warmup  " : "measure ", (d - lastDone) / ((now - lastTick) / 1e9), d, failed.get(),
            serverPid > 0 ? ", server rss " + mb(ServerStats.rssBytes(serverPid)) : "");
        lastDone = d;
        lastTick = now;
      }
      if (now >= measureEnd) {
        break;
      }
    }
    long cpuAfter = ServerStats.cpuNanos(serverPid);
    long clientCpuAfter = ServerStats.cpuNanos(clientPid);
    for (Worker w : workers) {
      w.join(timeout.toMillis() + 5_000);
    }
    long rssAfter = ServerStats.rssBytes(serverPid);
    double seconds = (measureEnd - measureStart) / 1e9;

    System.out.println();
    Map<String, Object> window = durationVars();
    System.out.printf(Locale.ROOT, "== result: %d s measured %s, %d client thread%s, window %d minutes"
        + " (step MINUTE, %s .. %s%s), %d services of layer %s ==%n", o.integer("duration"),
        watch != null ? "from the server's restart" : "after " + o.integer("warmup") + " s warmup",
        threads, threads == 1 ? "" : "s", o.integer("minutes"), window.get("start"), window.get("end"),
        fixedEnd() ? ", fixed" : "", services.size(), o.string("layer"));
    System.out.printf(Locale.ROOT, "%-22s %9s %7s %9s %9s %9s %9s %9s %12s%n", "query", "requests", "errors",
        "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "resp bytes");
    // Requests refused while the server restarted are expected; the measured ones count.
    long errors = watch != null ? 0 : warmupErrors.get();
    Stats expressionsTotal = new Stats();
    Stats all = new Stats();
    for (int k = 0; k < kinds.size(); k++) {
      Stats s = new Stats();
      for (Worker w : workers) {
        s.add(w.stats[k]);
      }
      errors += s.errors;
      printRow(kinds.get(k).name, s, seconds);
      if (kinds.get(k).expression != null) {
        expressionsTotal.add(s);
      }
      all.add(s);
    }
    if (expressionKinds.size() > 1) {
      printRow("expression (all)", expressionsTotal, seconds);
    }
    if (kinds.size() > 1) {
      printRow("all", all, seconds);
    }
    for (int k = 0; k < kinds.size(); k++) {
      Stats s = new Stats();
      for (Worker w : workers) {
        s.add(w.stats[k]);
      }
      Kind kind = kinds.get(k);
      if (kind == topology && s.maxNodes >= 0) {
        System.out.printf(Locale.ROOT, "topology answers      %d..%d nodes, %d..%d calls (%d services asked for)%n",
            s.minNodes, s.maxNodes, s.minCalls, s.maxCalls, services.size());
      }
      if (kind == globalTopology && s.maxNodes >= 0) {
        System.out.printf(Locale.ROOT, "global-topology       %d..%d nodes, %d..%d calls%n",
            s.minNodes, s.maxNodes, s.minCalls, s.maxCalls);
      }
      if (kind.expression != null && s.empty > 0) {
        List<String> some = s.emptyServices.stream().limit(5).toList();
        System.out.printf(Locale.ROOT, "%-21s %,d of %,d answers had no value in the window, for %d of the %d services"
            + " (%s%s)%n", kind.name, s.empty, s.requests - s.errors, s.emptyServices.size(), services.size(),
            String.join(", ", some), s.emptyServices.size() > some.size() ? ", ..." : "");
      }
      if (s.firstError != null) {
        System.out.printf(Locale.ROOT, "%-21s first error: %s%n", kind.name, s.firstError);
      }
    }
    System.out.printf(Locale.ROOT, "warmup                %,d requests (not measured), %,d failed%n",
        warmupRequests.get(), warmupErrors.get());
    long measuredRequests = all.requests;
    long clientCpu = clientCpuAfter >= 0 && clientCpuBefore >= 0 ? clientCpuAfter - clientCpuBefore : -1;
    System.out.printf(Locale.ROOT, "client pid %d         rss %s; CPU %s%n", clientPid,
        mb(ServerStats.rssBytes(clientPid)), cpuFigure(clientCpu, seconds, measuredRequests));
    if (serverPid > 0) {
      long cpu = cpuAfter >= 0 && cpuBefore >= 0 ? cpuAfter - cpuBefore : -1;
      System.out.printf(Locale.ROOT, "server pid %d         rss %s before, %s after the measurement, peak sampled %s;"
          + " CPU %s%n", serverPid, mb(rssBefore), mb(rssAfter), mb(peakRss),
          cpuFigure(cpu, seconds, measuredRequests));
    }
    if (firstError.get() != null) {
      System.out.println("first error           " + firstError.get());
    }
    if (workerDeaths.get() > 0) {
      System.out.println(workerDeaths.get() + " client thread(s) died (see the error output); the figures are short");
      errors += workerDeaths.get();
    }
    System.out.println(errors == 0 ? "all requests succeeded"
        : String.format(Locale.ROOT, "%,d requests failed", errors));
    return errors == 0 ? 0 : 1;
  }

  private static void printRow(String name, Stats s, double seconds) {
    long ok = s.requests - s.errors;
    System.out.printf(Locale.ROOT, "%-22s %,9d %,7d %9.1f %9s %9s %9s %9s %12s%n", name, s.requests, s.errors,
        s.requests / seconds, ms(s, 50), ms(s, 95), ms(s, 99), ok == 0 ? "-" : fmtMs(s.nanos.getMaxValue()),
        ok == 0 ? "-" : String.format(Locale.ROOT, "%,d", s.bytes / ok));
  }

  /** CPU time over the measurement: total, share of a core and per request. */
  private static String cpuFigure(long cpuNanos, double seconds, long requests) {
    if (cpuNanos < 0) {
      return "?";
    }
    return String.format(Locale.ROOT, "%.1f s = %.0f%% of a core, %.2f ms per request", cpuNanos / 1e9,
        cpuNanos / 1e9 / seconds * 100, requests == 0 ? 0 : cpuNanos / 1e6 / requests);
  }

  private static String ms(Stats s, double percentile) {
    return s.nanos.getTotalCount() == 0 ? "-" : fmtMs(s.nanos.getValueAtPercentile(percentile));
  }

  private static String fmtMs(long nanos) {
    double ms = nanos / 1e6;
    return String.format(Locale.ROOT, ms < 10 ? "%.2f" : ms < 100 ? "%.1f" : "%.0f", ms);
  }

  private static String mb(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
  }

  /** Reads the server's clock, zone and the layer's services; the reason it cannot, or null. */
  private String setUp() {
    JsonNode info;
    try {
      info = call("{ version getTimeInfo { timezone currentTimestamp } }", Map.of());
    } catch (IOException | InterruptedException e) {
      return "the GraphQL endpoint " + endpoint + " is not reachable (" + e + "); is the server running?";
    } catch (IllegalStateException e) {
      return "the GraphQL endpoint " + endpoint + " failed: " + e.getMessage();
    }
    JsonNode time = info.path("getTimeInfo");
    String tz = o.string("timezone");
    if (!tz.isEmpty()) {
      zone = ZoneId.of(tz);
    } else if (time.hasNonNull("timezone")) {
      zone = ZoneOffset.of(time.get("timezone").asText());
    } else {
      zone = ZoneId.systemDefault();
      System.out.println("note: the server did not say its time zone; using " + zone);
    }
    minuteFormat = DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(zone);
    long skew = 0;
    if (time.hasNonNull("currentTimestamp")) {
      skew = time.get("currentTimestamp").asLong() - System.currentTimeMillis();
    }
    // The difference includes the request's own latency; follow the server's clock only when the
    // clocks really differ.
    clockSkewMillis = Math.abs(skew) > 1_000 ? skew : 0;
    System.out.printf(Locale.ROOT, "server %s: version %s, time zone %s, clock %+d ms from ours%s%n", endpoint,
        info.path("version").asText("?"), zone, skew, clockSkewMillis != 0 ? " (windows follow the server's)" : "");

    JsonNode list;
    try {
      list = call("query listServices($layer: String) { services: listServices(layer: $layer) { id name normal } }",
          Map.of("layer", o.string("layer")));
    } catch (IOException | InterruptedException | IllegalStateException e) {
      return "listServices(layer: \"" + o.string("layer") + "\") failed: " + e.getMessage();
    }
    List<Service> found = new ArrayList<>();
    for (JsonNode s : list.path("services")) {
      found.add(new Service(s.path("id").asText(), s.path("name").asText(),
          !s.hasNonNull("normal") || s.get("normal").asBoolean()));
    }
    if (found.isEmpty()) {
      return "the server lists no service of layer " + o.string("layer")
          + "; send it some traffic first (LoadGenerator --backfill-minutes=" + o.integer("minutes")
          + " fills the whole window)";
    }
    if (!o.string("service").isEmpty()) {
      found = found.stream().filter(s -> s.name().equals(o.string("service"))).toList();
      if (found.isEmpty()) {
        return "the server lists no service named " + o.string("service") + " in layer " + o.string("layer");
      }
    }
    services = List.copyOf(found);
    serviceIds = services.stream().map(Service::id).toList();
    Map<String, Object> d = durationVars();
    System.out.printf(Locale.ROOT, "%d services of layer %s (%s, ...); window %s .. %s%n", services.size(),
        o.string("layer"), services.get(0).name(), d.get("start"), d.get("end"));
    return null;
  }

  /** A setup query; its data, or IllegalStateException with the server's first error. */
  private JsonNode call(String query, Map<String, Object> variables) throws IOException, InterruptedException {
    HttpResponse<byte[]> res = client.send(request(body(query, variables)), HttpResponse.BodyHandlers.ofByteArray());
    JsonNode root;
    try {
      root = JSON.readTree(res.body());
    } catch (IOException e) {
      throw new IllegalStateException("HTTP " + res.statusCode() + ", not JSON: " + snippet(res.body()));
    }
    if (res.statusCode() != 200 || hasErrors(root)) {
      throw new IllegalStateException("HTTP " + res.statusCode() + ": " + errorMessage(root));
    }
    return root.path("data");
  }

  private HttpRequest request(byte[] body) {
    HttpRequest.Builder req = HttpRequest.newBuilder(endpoint)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (!o.string("authorization").isEmpty()) {
      req.header("Authorization", o.string("authorization"));
    }
    return req.build();
  }

  private static byte[] body(String query, Map<String, Object> variables) throws IOException {
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("query", query);
    b.put("variables", variables);
    return JSON.writeValueAsBytes(b);
  }

  /** Whether {@code --end} fixes the window's last minute. */
  private boolean fixedEnd() {
    return !o.string("end").isEmpty();
  }

  /**
   * The last {@code --minutes} minutes up to the server's current minute (or {@code --end}'s), in
   * its time zone.
   */
  private Map<String, Object> durationVars() {
    DateTimeFormatter f = minuteFormat;
    long now = fixedEnd() ? o.longValue("end") : System.currentTimeMillis() + clockSkewMillis;
    long minute = Math.floorDiv(now, 60_000L) * 60_000L;
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("start", f.format(Instant.ofEpochMilli(minute - (o.integer("minutes") - 1) * 60_000L)));
    d.put("end", f.format(Instant.ofEpochMilli(minute)));
    d.put("step", "MINUTE");
    if (o.string("ui").equals("10.4")) {
      d.put("coldStage", false); // booster-ui 10.3+ sends it in every duration
    }
    return d;
  }

  private static boolean hasErrors(JsonNode root) {
    JsonNode e = root.get("errors");
    return e != null && !e.isNull() && (!e.isArray() || e.size() > 0);
  }

  private static String errorMessage(JsonNode root) {
    JsonNode e = root.path("errors");
    JsonNode first = e.isArray() && e.size() > 0 ? e.get(0) : e;
    String msg = first.path("message").asText("");
    return msg.isEmpty() ? snippet(root.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)) : msg;
  }

  private static String snippet(byte[] body) {
    String s = new String(body, java.nio.charset.StandardCharsets.UTF_8);
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  /** One client thread: picks the next request of the shared sequence, sends it, checks the answer. */
  private final class Worker extends Thread {
    final Stats[] stats = new Stats[kinds.size()];
    /** Where warmup answers are checked into; not reported. */
    private final Stats scratch = new Stats();

    Worker(int id) {
      super("query-load-" + id);
      setDaemon(true);
      // A worker that dies would silently send nothing more: say so and fail the run.
      setUncaughtExceptionHandler((t, e) -> {
        workerDeaths.incrementAndGet();
        System.err.println(t.getName() + " died: " + e);
      });
      for (int i = 0; i < stats.length; i++) {
        stats[i] = new Stats();
      }
    }

    @Override
    public void run() {
      int expressionCount = expressionKinds.size();
      long pauseMillis = o.integer("pause-millis");
      boolean first = true;
      while (System.nanoTime() < measureEnd) {
        if (watch != null && !watch.ready()) {
          try {
            Thread.sleep(5); // a balancer sends nothing to a server that is not ready
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        // A person's dashboard refreshing, not a client in a loop. The warm-up runs back to back to
        // warm this client's own HTTP code (a browser's is warm; a cold JVM client added ~5 ms to
        // each of a paced minute's 30 requests), and every measured request follows a pause.
        if (pauseMillis > 0 && !first && System.nanoTime() + pauseMillis * 1_000_000 >= measureStart) {
          try {
            Thread.sleep(pauseMillis);
          } catch (InterruptedException e) {
            return;
          }
        }
        first = false;
        long n = sequence.getAndIncrement();
        // Interleaved: topology, global topology, expression, topology, ... (the kinds asked for);
        // the expressions cycle over the expressions for each service in turn.
        Kind kind;
        Map<String, Object> vars = new LinkedHashMap<>();
        vars.put("duration", durationVars());
        String query;
        String service = null;
        if (dashboard != null) {
          kind = dashboard;
          Service s = services.get((int) (n % services.size()));
          service = s.name();
          query = dashboardQuery;
          vars.put("entity", s.entity());
        } else if (cycle.get((int) (n % cycle.size())) == topology) {
          kind = topology;
          query = TOPOLOGY_QUERY;
          vars.put("ids", serviceIds);
        } else if (cycle.get((int) (n % cycle.size())) == globalTopology) {
          kind = globalTopology;
          query = GLOBAL_TOPOLOGY_QUERY;
          vars.put("layer", o.string("layer"));
        } else if (cycle.get((int) (n % cycle.size())) == version) {
          kind = version;
          query = VERSION_QUERY;
          vars.clear();
        } else {
          long m = n / cycle.size();
          kind = expressionKinds.get((int) (m % expressionCount));
          Service s = services.get((int) ((m / expressionCount) % services.size()));
          service = s.name();
          query = expressionQuery;
          vars.put("expression", kind.expression);
          vars.put("entity", s.entity());
        }
        byte[] body;
        try {
          body = body(query, vars);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        HttpRequest req = request(body);

        long t0 = System.nanoTime();
        HttpResponse<byte[]> res = null;
        String error = null;
        try {
          res = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
          error = "request failed: " + e;
        } catch (InterruptedException e) {
          return;
        }
        long t1 = System.nanoTime();

        Stats s = stats[kinds.indexOf(kind)];
        // The loop stops starting requests at measureEnd; one that started a hair later still counts.
        boolean measured = t0 >= measureStart;
        Stats into = measured ? s : scratch;
        if (error == null) {
          error = check(kind, res, into, service);
        }
        done.incrementAndGet();
        if (!measured) {
          warmupRequests.incrementAndGet();
        }
        if (error != null) {
          failed.incrementAndGet();
          if (firstError.compareAndSet(null, kind.name + ": " + error)) {
            System.err.println("first error (" + kind.name + "): " + error);
          }
          if (measured) {
            s.requests++;
            s.errors++;
            if (s.firstError == null) {
              s.firstError = error;
            }
          } else {
            warmupErrors.incrementAndGet();
          }
          continue;
        }
        if (measured) {
          s.requests++;
          s.bytes += res.body().length;
          s.nanos.recordValue(t1 - t0);
        }
      }
    }

    /** Why the answer is not good, or null; records what the answer holds into {@code s}. */
    private String check(Kind kind, HttpResponse<byte[]> res, Stats s, String service) {
      JsonNode root;
      try {
        root = JSON.readTree(res.body());
      } catch (IOException e) {
        return "HTTP " + res.statusCode() + ", not JSON: " + snippet(res.body());
      }
      if (res.statusCode() != 200) {
        return "HTTP " + res.statusCode() + ": " + errorMessage(root);
      }
      if (hasErrors(root)) {
        return errorMessage(root);
      }
      if (kind == topology || kind == globalTopology) {
        JsonNode t = root.path("data").path("topology");
        int nodes = t.path("nodes").size();
        int calls = t.path("calls").size();
        if (nodes == 0) {
          return "topology answer has no nodes: " + snippet(res.body());
        }
        s.minNodes = Math.min(s.minNodes, nodes);
        s.maxNodes = Math.max(s.maxNodes, nodes);
        s.minCalls = Math.min(s.minCalls, calls);
        s.maxCalls = Math.max(s.maxCalls, calls);
        if (described.putIfAbsent(kind.name, true) == null) {
          int real = 0;
          for (JsonNode n : t.path("nodes")) {
            real += n.path("isReal").asBoolean() ? 1 : 0;
          }
          System.out.printf(Locale.ROOT, "first %s answer: %d nodes (%d real), %d calls, %,d bytes%n",
              kind.name, nodes, real, calls, res.body().length);
        }
        return null;
      }
      if (kind == version) {
        return root.path("data").path("version").asText().isEmpty() ? "no version: " + snippet(res.body()) : null;
      }
      if (kind == dashboard) {
        for (int i = 0; i < dashboardExpressions.size(); i++) {
          JsonNode w = root.path("data").path("w" + i);
          if (w.isMissingNode() || w.hasNonNull("error")) {
            return dashboardExpressions.get(i) + ": " + (w.isMissingNode() ? "no answer" : w.get("error").asText());
          }
        }
        return null;
      }
      JsonNode r = root.path("data").path("result");
      if (r.hasNonNull("error")) {
        return "execExpression error: " + r.get("error").asText();
      }
      int series = 0;
      int values = 0;
      int present = 0;
      for (JsonNode m : r.path("results")) {
        series++;
        for (JsonNode v : m.path("values")) {
          values++;
          present += v.hasNonNull("value") ? 1 : 0;
        }
      }
      if (present == 0) {
        s.empty++;
        s.emptyServices.add(service);
      }
      if (described.putIfAbsent(kind.name, true) == null) {
        System.out.printf(Locale.ROOT,
            "first %s answer: type %s, %d series, %d values, %d of them present, %,d bytes%n",
            kind.name, r.path("type").asText(), series, values, present, res.body().length);
      }
      return null;
    }
  }

  /** QueryLoad's {@code --key=value} options. */
  static final class Options extends CliOptions {
    private Options() {
      super("QueryLoad");
      opt("http", "127.0.0.1:12800", "HTTP address of the server (GraphQL at /graphql)");
      opt("duration", "30", "seconds to measure for");
      opt("warmup", "10", "seconds of requests before measuring (checked, not measured)");
      opt("concurrency", "1", "client threads, each sending requests back to back");
      opt("pause-millis", "0", "each client thread waits this long before each measured request (a dashboard's"
          + " refresh); the warm-up runs back to back");
      opt("minutes", "60", "queried window in minutes, ending at the server's current minute (step MINUTE)");
      opt("layer", "MESH", "layer whose services are queried");
      opt("queries", "topology,expression", "which queries: topology (getServicesTopology over all the layer's"
          + " services), global-topology (getGlobalTopology of the layer) and/or expression (execExpression of "
          + String.join(", ", EXPRESSIONS) + ", cycling over the services), version (the cheapest request: what any"
          + " request waits for); or dashboard alone (the first --dashboard-size expressions of a service"
          + " dashboard in one request)");
      opt("expression", "", "expression mode: only this MQE expression (e.g. service_cpm); empty = the three above");
      opt("service", "", "expression and dashboard modes: only this service; empty = cycle over the layer's");
      opt("dashboard-size", String.valueOf(DASHBOARD.size()), "dashboard mode: how many of " + DASHBOARD
          + " (the first N, 1.." + DASHBOARD.size() + ")");
      opt("end", "", "epoch milliseconds within the window's last minute (a closed minute: the same data on every"
          + " run); empty = the server's current minute");
      opt("timeout", "30", "seconds a request may take before it counts as failed");
      opt("timezone", "", "zone of the durations, e.g. +0800 or UTC; none = the server's, from getTimeInfo");
      opt("server-pid", "", "pid of the server, to read its RSS and CPU from /proc");
      opt("server-pid-file", "", "a file holding the server's pid, read when the measurement starts (with --restart,"
          + " the restarted server's)");
      opt("restart", "false", "measure the first --duration s after the server restarts: requests run unmeasured"
          + " (warming this client) until /readyz stops answering 200, none are sent until it answers 200 again,"
          + " then --duration s are measured; --warmup is the most seconds to wait for the restart");
      opt("report", "5", "seconds between progress lines");
      opt("authorization", "", "Authorization header of every request, e.g. 'Basic ...' as swctl sends it");
      opt("ui", "10.1", "the booster-ui version whose query texts to send: 10.1, or 10.4 (each MQE value's owner"
          + " selected, coldStage in every duration)");
    }

    static Options parse(String[] args) {
      Options o = new Options();
      o.apply(args);
      return o;
    }

    @Override
    protected void validate() {
      if (integer("duration") < 1 || integer("concurrency") < 1 || integer("minutes") < 1 || integer("timeout") < 1
          || integer("report") < 1 || integer("warmup") < 0 || integer("pause-millis") < 0) {
        throw new IllegalArgumentException("duration, concurrency, minutes, timeout and report must be at least 1,"
            + " warmup and pause-millis at least 0");
      }
      if (!string("ui").equals("10.1") && !string("ui").equals("10.4")) {
        throw new IllegalArgumentException("--ui must be 10.1 or 10.4");
      }
      if (integer("dashboard-size") < 1 || integer("dashboard-size") > DASHBOARD.size()) {
        throw new IllegalArgumentException("--dashboard-size must be within 1.." + DASHBOARD.size());
      }
      if (!string("end").isEmpty() && longValue("end") <= 0) {
        throw new IllegalArgumentException("--end must be epoch milliseconds");
      }
      if (string("queries").isBlank()) {
        throw new IllegalArgumentException("--queries needs topology and/or expression");
      }
      if (!string("timezone").isEmpty()) {
        try {
          ZoneId.of(string("timezone"));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("--timezone: " + e.getMessage());
        }
      }
      serverPid();
    }
  }
}
