package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.server.testing.CollectorProcess;
import io.sextant.server.testing.HookReceiver;
import io.sextant.server.testing.RoundRobinMeshClient;
import io.sextant.server.testing.RoundRobinMeshClient.StreamResult;
import io.sextant.server.testing.RoundRobinMeshClient.Totals;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collectors coming and going under mesh traffic, as Kubernetes does it: real collector processes on
 * one Elasticsearch, real sidecar-like clients round-robining over their addresses. In every scenario
 * the GraphQL totals, asked from every live collector, equal exactly what the collectors say they
 * accepted, and what the clients sent but no collector accepted is measured and bounded by what was in
 * flight on the streams that failed (exactly what the drain's statuses say was not handled).
 *
 * <p>A replacement collector gets a new id, as a Deployment's rollout names its new pods (the chart
 * uses the pod name); a reused id would be as safe, since partial row ids carry the start stamp too.
 */
class CollectorsComingAndGoingIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RECORDS_PER_MESSAGE = 10;
  private static final int FLUSH_MILLIS = 1000;
  private static final Pattern FIRED = Pattern.compile("(?m)^sextant_alarms_fired_total(?:\\{[^}]*})? (\\S+)");
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);
  private static final TimeBuckets BUCKETS = new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC());

  @Test
  void rollingUpgradeLosesOnlyWhatWasInFlightOnDrainedStreams() throws Exception {
    String prefix = "lc-rolling";
    long from = System.currentTimeMillis();
    List<CollectorProcess> live = new CopyOnWriteArrayList<>(startAll(prefix, "a-1", "b-1", "c-1"));
    List<CollectorProcess> gone = new ArrayList<>();
    Map<String, Long> sigterms = new ConcurrentHashMap<>();
    try (RoundRobinMeshClient client = client(live)) {
      awaitTraffic(live);
      for (String next : List.of("a-2", "b-2", "c-2")) {
        // maxSurge 1, maxUnavailable 0: the new pod is ready before the old one is deleted; deleting a pod
        // takes it out of the endpoints at once and SIGTERMs it.
        CollectorProcess fresh = CollectorProcess.start(next, env(prefix)).awaitReady();
        CollectorProcess old = live.get(0);
        live.add(fresh);
        live.remove(old);
        sigterms.put(old.grpcAddress(), System.nanoTime());
        drain(old);
        gone.add(old);
        awaitTraffic(List.of(fresh));
      }
      List<StreamResult> results = client.stop();
      assertExact("rolling upgrade", live, gone, results, from);
      // The drain ends a stream right after the readiness period (1 s), not after the grace period.
      List<Long> endAfterSigterm = results.stream().filter(StreamResult::handledKnown)
          .map(r -> TimeUnit.NANOSECONDS.toMillis(r.endNanos() - sigterms.get(r.address()))).sorted().toList();
      System.out.printf("rolling upgrade: drained streams ended %s ms after their collector's SIGTERM%n",
          endAfterSigterm);
      assertThat(endAfterSigterm).allMatch(ms -> ms >= 1000 && ms < 6000);
    } finally {
      closeAll(live);
    }
  }

  @Test
  void scaleOneToThreeToOne() throws Exception {
    String prefix = "lc-scale";
    long from = System.currentTimeMillis();
    List<CollectorProcess> live = new CopyOnWriteArrayList<>(startAll(prefix, "s-1"));
    List<CollectorProcess> gone = new ArrayList<>();
    try (RoundRobinMeshClient client = client(live)) {
      awaitTraffic(live);
      live.addAll(startAll(prefix, "s-2", "s-3"));
      awaitTraffic(live); // each sidecar's next stream goes to the next address
      // SkyWalking's cluster nodes: each collector lists all three, itself marked, from shared storage.
      for (CollectorProcess c : live) {
        assertThat(clusterNodes(c, live.size())).as("nodes listed by %s", c.collectorId)
            .isEqualTo(nodes(live, c));
      }
      List<CollectorProcess> leaving = List.copyOf(live.subList(1, 3));
      live.removeAll(leaving);
      leaving.forEach(CollectorProcess::terminate); // both at once, as a scale-down deletes its pods
      for (CollectorProcess c : leaving) {
        assertThat(c.waitFor(40)).as("%s exits", c.collectorId).isTrue();
        gone.add(c);
      }
      // A collector that stopped cleanly leaves the list at once.
      assertThat(clusterNodes(live.get(0), 1)).isEqualTo(nodes(live, live.get(0)));
      long before = live.get(0).meshAccepted();
      Poll.until("traffic on the one left", Duration.ofSeconds(20), () -> live.get(0).meshAccepted() > before);
      List<StreamResult> results = client.stop();
      assertExact("scale 1 -> 3 -> 1", live, gone, results, from);
    } finally {
      closeAll(live);
    }
  }

  @Test
  void killNineLosesAtMostWhatTheKilledCollectorHadNotWritten() throws Exception {
    String prefix = "lc-kill";
    long from = System.currentTimeMillis();
    // Also compaction: a minute seven minutes ago, closed as soon as it is collected (grace 0) and due
    // (after 2 minutes), gets data from every collector at once, compacted by passes every 2 s.
    long compactedMinute = BUCKETS.minuteBucket(from - 7 * 60_000);
    long compactedTime = BUCKETS.startMillis(compactedMinute, Step.MINUTE) + 30_000;
    Map<String, String> env = new HashMap<>(env(prefix));
    env.putAll(Map.of("SEXTANT_CORE_GRACE_MINUTES", "0", "SEXTANT_CORE_COMPACT_AFTER_MINUTES", "2",
        "SEXTANT_CORE_COMPACT_INTERVAL_SECONDS", "2"));
    List<CollectorProcess> live = new CopyOnWriteArrayList<>(startAll(env, "k-1", "k-2", "k-3"));
    CollectorProcess victim = live.get(2);
    try {
      // Every service on every collector: three closed rows per entity. Counted in each collector's
      // accepted records, outside the totals the kill is judged by.
      long compactedEach = sendCalls(live.get(0), compactedTime, 20);
      for (CollectorProcess c : live.subList(1, live.size())) {
        sendCalls(c, compactedTime, 20);
      }
      long compactedSent = compactedEach * live.size();
      // Warm up: a first run of traffic written and exact on three collectors, so the kill below finds
      // them in their steady write cycle (the first write of a prefix creates its indices, seconds on a busy
      // machine).
      List<StreamResult> warmUp;
      try (RoundRobinMeshClient client = client(live)) {
        awaitTraffic(live, compactedEach);
        warmUp = client.stop();
      }
      long warmUpAccepted = 0;
      for (CollectorProcess c : live) {
        warmUpAccepted += c.meshAccepted() - compactedEach;
      }
      assertThat(awaitTotalFromEvery(live, warmUpAccepted, from)).isEqualTo(warmUpAccepted);
      List<long[]> scrapes = new CopyOnWriteArrayList<>(); // {nanoTime, accepted}
      Thread scraper = new Thread(() -> {
        while (victim.isAlive()) {
          try {
            long accepted = victim.meshAccepted() - compactedEach;
            scrapes.add(new long[] {System.nanoTime(), accepted});
            Thread.sleep(200); // a scrape every 200 ms, as a monitor's: the sampling is the point
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            return; // the port is gone
          }
        }
      }, "scraper");
      scraper.setDaemon(true);
      scraper.start();
      // Everything it accepted at least one write cycle (collect + write, each FLUSH_MILLIS, plus the bulk
      // call) before the kill was written; nothing it did not accept can be.
      long window = TimeUnit.MILLISECONDS.toNanos(3L * FLUSH_MILLIS + 5000);
      try (RoundRobinMeshClient client = client(live)) {
        // The victim in its steady write cycle: it accepted this run's traffic more than a write window ago.
        Poll.until("the victim scraped with new traffic a write window ago", Duration.ofSeconds(40),
            () -> !scrapes.isEmpty() && scrapes.stream()
                .anyMatch(x -> x[1] > scrapes.get(0)[1] && x[0] <= System.nanoTime() - window));
        live.remove(victim);
        long kill = System.nanoTime();
        victim.kill();
        scraper.join(5000);
        long survivorsAtKill = accepted(live);
        Poll.until("the survivors take the victim's share", Duration.ofSeconds(20),
            () -> accepted(live) > survivorsAtKill + RECORDS_PER_MESSAGE * live.size());
        List<StreamResult> results = new ArrayList<>(warmUp);
        results.addAll(client.stop());
        Totals totals = Totals.of(results, RECORDS_PER_MESSAGE);
        long others = 0;
        for (CollectorProcess c : live) {
          others += c.meshAccepted() - compactedEach;
        }
        // What the victim wrote is what the totals hold beyond the survivors' counts.
        long total = awaitSettledTotal(live, others, from);
        long writtenByVictim = total - others;
        long surelyWritten = scrapes.stream().filter(s -> s[0] <= kill - window).mapToLong(s -> s[1]).max().orElse(0);
        long[] last = scrapes.get(scrapes.size() - 1);
        long sentToVictim = results.stream().filter(r -> r.address().equals(victim.grpcAddress()))
            .mapToLong(StreamResult::records).sum();
        long lost = totals.sent() - total;
        System.out.printf("kill -9: sent %d, in GraphQL %d, lost %d (%.3f%%); survivors accepted %d; victim: sent %d,"
            + " accepted %d by its last scrape %d ms before the kill, wrote %d (so >= %d accepted but unwritten);"
            + " in flight on failed streams %d in %d streams%n", totals.sent(), total, lost,
            100.0 * lost / totals.sent(), others, sentToVictim, last[1], TimeUnit.NANOSECONDS.toMillis(kill - last[0]),
            writtenByVictim, last[1] - writtenByVictim, totals.inFlightOnFailed(), totals.failedStreams());
        assertThat(writtenByVictim).as("the survivors' counts are exact and the victim wrote what it had accepted"
            + " a write cycle before the kill").isBetween(surelyWritten, sentToVictim);
        // The clients' loss: streams in flight on the victim, and what it acknowledged in its last write cycle.
        long ackedLate = results.stream().filter(r -> r.ok() && r.address().equals(victim.grpcAddress())
            && r.endNanos() > kill - window).mapToLong(StreamResult::records).sum();
        assertThat(lost).isBetween(0L, totals.inFlightOnFailed() + ackedLate);

        // The compacted minute: every row of it is a compacted one (one per entity where three
        // collectors wrote three), it answers exactly what was sent, and so it does after late data.
        long rows = awaitAllCompacted(prefix, compactedMinute);
        System.out.printf("compaction: minute %d written by three collectors is %d compacted rows%n", compactedMinute,
            rows);
        assertThat(awaitMinuteTotalFromEvery(live, compactedMinute, compactedSent)).isEqualTo(compactedSent);
        // Late data for it, closed beside the compacted rows: exact at once, and compacted again by the
        // survivors, the dead collector's share too once the roster no longer lists it (30 s).
        long late = 0;
        for (CollectorProcess c : live) {
          late += sendCalls(c, compactedTime, 7);
        }
        assertThat(awaitMinuteTotalFromEvery(live, compactedMinute, compactedSent + late))
            .isEqualTo(compactedSent + late);
        assertThat(awaitAllCompacted(prefix, compactedMinute)).isEqualTo(rows);
        assertThat(awaitMinuteTotalFromEvery(live, compactedMinute, compactedSent + late))
            .isEqualTo(compactedSent + late);
      }
    } finally {
      closeAll(live);
      victim.close();
    }
  }

  private static final List<String> COMPACTED_SERVICES = List.of("orders", "payments", "stock", "mail", "search");

  /** {@code calls} server-side calls to each of {@link #COMPACTED_SERVICES} at {@code time}; how many in all. */
  private static long sendCalls(CollectorProcess c, long time, int calls) throws Exception {
    HTTPServiceMeshMetrics.Builder metrics = HTTPServiceMeshMetrics.newBuilder();
    for (String service : COMPACTED_SERVICES) {
      for (int i = 0; i < calls; i++) {
        metrics.addMetrics(HTTPServiceMeshMetric.newBuilder().setStartTime(time).setEndTime(time + 20 + i)
            .setLatency(20 + i).setSourceServiceName("gateway").setSourceServiceInstance("gateway-1")
            .setDestServiceName(service).setDestServiceInstance(service + "-" + i % 2).setEndpoint("GET:/" + i % 3)
            .setResponseCode(200).setStatus(true).setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server)
            .setTlsMode("NONE"));
      }
    }
    ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub = GrpcClients
        .builder("http://" + c.grpcAddress()).build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
    assertThat(TestServer.clientStream(stub::collect, List.of(ServiceMeshMetrics.newBuilder()
        .setHttpMetrics(metrics).build())).isOk()).isTrue();
    return (long) calls * COMPACTED_SERVICES.size();
  }

  private static long awaitMinuteTotalFromEvery(List<CollectorProcess> live, long minute, long expected)
      throws Exception {
    String at = TimeBuckets.format(minute, Step.MINUTE);
    Poll.until("GraphQL totals of minute " + minute + " from each live collector " + expected,
        Duration.ofSeconds(40), () -> {
          List<Long> totals = new ArrayList<>();
          for (CollectorProcess c : live) {
            totals.add(total(c, COMPACTED_SERVICES, at, at));
          }
          return totals;
        }, totals -> totals.stream().allMatch(x -> x == expected));
    return expected;
  }

  /** Waits until every row of the minute is a compacted one; how many there are. */
  private static long awaitAllCompacted(String prefix, long minute) throws Exception {
    Poll.until("every closed row of minute " + minute + " compacted", Duration.ofSeconds(45),
        () -> closedUncompacted(prefix, minute) == 0 && storedRows(prefix, minute, true) > 0
            && storedRows(prefix, minute, false) == storedRows(prefix, minute, true));
    return storedRows(prefix, minute, true);
  }

  /** Stored metric rows of the minute: all of them, or only the compacted ones. */
  private static long storedRows(String prefix, long minute, boolean compacted) throws Exception {
    return count(prefix, "{\"bool\":{\"filter\":[{\"term\":{\"bucket\":" + minute + "}}"
        + (compacted ? ",{\"term\":{\"writer\":\"(compacted)\"}}" : "") + "]}}");
  }

  private static long closedUncompacted(String prefix, long minute) throws Exception {
    return count(prefix, "{\"bool\":{\"filter\":[{\"term\":{\"bucket\":" + minute + "}},"
        + "{\"term\":{\"closed\":true}}],\"must_not\":[{\"term\":{\"writer\":\"(compacted)\"}}]}}");
  }

  private static long count(String prefix, String query) throws Exception {
    HttpResponse<String> r = TestServer.HTTP.send(HttpRequest.newBuilder(URI.create(ES.httpUrl() + "/" + prefix
        + "-metrics-minute-*/_count")).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"query\":" + query + "}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("count").asLong();
  }

  /**
   * The GraphQL totals (asked from every live collector) equal the collectors' own accepted counts (live
   * ones from /metrics, drained ones from their last log line); the clients' loss is what the drained
   * streams' statuses say was not handled, plus at most what was in flight on streams without one.
   */
  private static void assertExact(String scenario, List<CollectorProcess> live, List<CollectorProcess> gone,
      List<StreamResult> results, long from) throws Exception {
    long received = 0;
    for (CollectorProcess c : live) {
      received += c.meshAccepted();
    }
    for (CollectorProcess c : gone) {
      received += c.loggedMeshAccepted();
      assertThat(c.logText()).contains("everything accepted was written");
    }
    long total = awaitTotalFromEvery(live, received, from);
    Totals t = Totals.of(results, RECORDS_PER_MESSAGE);
    long lost = t.sent() - received;
    System.out.printf("%s: sent %d in %d streams, acknowledged %d, received by the collectors %d = GraphQL %d;"
        + " lost %d (%.3f%%); failed streams %d (in flight %d), drained with a handled count %d (loss %d, at most"
        + " %d per stream), without one: in flight %d%n", scenario, t.sent(), results.size(), t.acknowledged(),
        received, total, lost, 100.0 * lost / t.sent(), t.failedStreams(), t.inFlightOnFailed(), t.drainedStreams(),
        t.knownLoss(), t.maxDrainLoss(), t.unknownInFlight());
    assertThat(total).as("GraphQL totals = the collectors' accepted counts").isEqualTo(received);
    assertThat(t.acknowledged()).as("acknowledged records are never lost").isLessThanOrEqualTo(received);
    assertThat(lost).as("lost: what the drain said it had not handled, plus streams that said nothing")
        .isBetween(t.knownLoss(), t.knownLoss() + t.unknownInFlight());
  }

  /** Waits until every live collector's GraphQL answers {@code expected}; returns the last total seen. */
  private static long awaitTotalFromEvery(List<CollectorProcess> live, long expected, long from) throws Exception {
    Poll.until("GraphQL totals from each live collector " + expected, Duration.ofSeconds(40),
        () -> totals(live, from), totals -> totals.stream().allMatch(x -> x == expected));
    return expected;
  }

  /**
   * Waits until every live collector's GraphQL answers the same total, at least {@code atLeast}, and
   * goes on answering it for two seconds (longer than a write cycle); returns it.
   */
  private static long awaitSettledTotal(List<CollectorProcess> live, long atLeast, long from) throws Exception {
    long[] since = {0, -1}; // {nanoTime first seen, total}
    List<Long> settled = Poll.until("the GraphQL totals settled at or above " + atLeast, Duration.ofSeconds(40),
        () -> totals(live, from), totals -> {
          long first = totals.get(0);
          boolean agreed = first >= atLeast && totals.stream().allMatch(x -> x == first);
          if (!agreed || first != since[1]) {
            since[0] = System.nanoTime();
            since[1] = agreed ? first : -1;
            return false;
          }
          return System.nanoTime() - since[0] >= TimeUnit.MILLISECONDS.toNanos(2L * FLUSH_MILLIS);
        });
    return settled.get(0);
  }

  /** Each live collector's GraphQL total since {@code from}. */
  private static List<Long> totals(List<CollectorProcess> live, long from) throws Exception {
    List<Long> totals = new ArrayList<>();
    for (CollectorProcess c : live) {
      totals.add(total(c, from));
    }
    return totals;
  }

  /** Mesh records the collectors accepted, from their {@code /metrics}. */
  private static long accepted(List<CollectorProcess> collectors) throws Exception {
    long accepted = 0;
    for (CollectorProcess c : collectors) {
      accepted += c.meshAccepted();
    }
    return accepted;
  }

  /** Waits until the clients' traffic reaches every one of {@code collectors}. */
  private static void awaitTraffic(List<CollectorProcess> collectors) throws Exception {
    awaitTraffic(collectors, 0);
  }

  /** The same, for collectors that had accepted {@code before} records each. */
  private static void awaitTraffic(List<CollectorProcess> collectors, long before) throws Exception {
    for (CollectorProcess c : List.copyOf(collectors)) {
      Poll.until("traffic on " + c.collectorId, Duration.ofSeconds(30), () -> c.meshAccepted() > before);
    }
  }

  /** The sum of {@code service_cpm} over the client's services and the minutes since {@code from}. */
  private static long total(CollectorProcess c, long from) throws Exception {
    String start = TimeBuckets.format(BUCKETS.minuteBucket(from - 60_000), Step.MINUTE);
    String end = TimeBuckets.format(BUCKETS.minuteBucket(System.currentTimeMillis() + 60_000), Step.MINUTE);
    return total(c, RoundRobinMeshClient.SERVICES, start, end);
  }

  /** The sum of {@code service_cpm} over {@code services} and the minutes from start to end. */
  private static long total(CollectorProcess c, List<String> services, String start, String end) throws Exception {
    StringBuilder q = new StringBuilder("{");
    for (int i = 0; i < services.size(); i++) {
      q.append(" s").append(i).append(": execExpression(expression: \"service_cpm\", entity: {serviceName: \"")
          .append(services.get(i)).append("\", normal: true}, duration: {start: \"")
          .append(start).append("\", end: \"").append(end).append("\", step: MINUTE}) { error results { values {")
          .append(" value } } }");
    }
    String body = JSON.writeValueAsString(Map.of("query", q.append(" }").toString()));
    JsonNode data = JSON.readTree(TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + c.httpPort + "/graphql")).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).body())
        .get("data");
    long sum = 0;
    for (int i = 0; i < services.size(); i++) {
      JsonNode r = data.get("s" + i);
      assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
      for (JsonNode v : r.get("results").get(0).get("values")) {
        if (!v.get("value").isNull()) {
          sum += Math.round(Double.parseDouble(v.get("value").asText()));
        }
      }
    }
    return sum;
  }

  private static RoundRobinMeshClient client(List<CollectorProcess> live) {
    // 3 sidecars, up to 50 messages of 10 records a second each (1,500 records/s), a new stream every 4 s
    // (longer than the drain's readiness period, so the drain ends streams).
    return new RoundRobinMeshClient(() -> live.stream().map(CollectorProcess::grpcAddress).toList(), 3, 4000,
        RECORDS_PER_MESSAGE, 20).start();
  }

  /** {@code grpcPort:self} of each node {@code /status/cluster/nodes} lists, once it lists {@code expected}. */
  private static Set<String> clusterNodes(CollectorProcess c, int expected) throws Exception {
    JsonNode nodes = Poll.until("cluster nodes of " + c.collectorId, Duration.ofSeconds(20),
        () -> JSON.readTree(TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.httpPort
            + "/status/cluster/nodes")).build(), HttpResponse.BodyHandlers.ofString()).body()).get("nodes"),
        n -> n.size() == expected);
    Set<String> out = new HashSet<>();
    nodes.forEach(n -> out.add(n.get("port").asInt() + ":" + n.get("self").asBoolean()));
    return out;
  }

  private static Set<String> nodes(List<CollectorProcess> live, CollectorProcess self) {
    Set<String> out = new HashSet<>();
    live.forEach(c -> out.add(c.grpcPort + ":" + (c == self)));
    return out;
  }

  private static void drain(CollectorProcess c) throws InterruptedException {
    c.terminate();
    assertThat(c.waitFor(40)).as("%s exits after its drain", c.collectorId).isTrue();
  }

  private static Map<String, String> env(String prefix) {
    return CollectorProcess.onElasticsearch(ES.hostAndPort(), prefix, Map.of(
        "SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", String.valueOf(FLUSH_MILLIS),
        "SEXTANT_SERVER_DRAIN_READINESS_SECONDS", "1",
        "SEXTANT_SERVER_SHUTDOWN_GRACE_SECONDS", "1",
        "SEXTANT_SERVER_DRAIN_TIMEOUT_SECONDS", "20"));
  }

  /** Starts the collectors at once (a cold JVM takes seconds) and waits until each is ready. */
  private static List<CollectorProcess> startAll(String prefix, String... ids) throws Exception {
    return startAll(env(prefix), ids);
  }

  private static List<CollectorProcess> startAll(Map<String, String> env, String... ids) throws Exception {
    List<CollectorProcess> started = new ArrayList<>();
    for (String id : ids) {
      started.add(CollectorProcess.start(id, env));
    }
    for (CollectorProcess c : started) {
      c.awaitReady();
    }
    return started;
  }

  private static void closeAll(List<CollectorProcess> collectors) {
    for (CollectorProcess c : collectors) {
      c.close();
    }
  }

  /**
   * Three collectors evaluate one alarm rule over the same merged data while a slow service breaks it
   * every minute: each minute's alarm is stored once and the webhook called once, whichever collector
   * decided it; after the deciding collector is killed (-9) mid-incident, the others go on firing, once
   * per minute.
   */
  @Test
  void eachMinutesAlarmFiresOnceThroughAKill(@TempDir Path dir) throws Exception {
    try (HookReceiver hooks = new HookReceiver()) {
      Path settings = dir.resolve("alarm-settings.yml");
      Files.writeString(settings, """
          rules:
            reviews_slow_rule:
              expression: sum(service_resp_time > 1000) >= 1
              period: 3
              silence-period: 0
              message: Service {name} answers in more than 1000ms
          hooks:
            webhook:
              default:
                is-default: true
                urls: [%s]
          """.formatted(hooks.url("/webhook")));
      // Minutes close at once (no grace) and are evaluated 3 s after; the first evaluation comes
      // 10 s after the start, once the test has sent the minutes before it.
      Map<String, String> env = CollectorProcess.onElasticsearch(ES.hostAndPort(), "lc-alarms", Map.of(
          "SEXTANT_ALARM_SETTINGS_FILE", settings.toString(), "SEXTANT_CORE_GRACE_MINUTES", "0",
          "SEXTANT_CORE_FLUSH_INTERVAL_MILLIS", "1000", "SEXTANT_ALARM_SETTLE_SECONDS", "3",
          "SEXTANT_ALARM_EVALUATION_INTERVAL_SECONDS", "10"));
      List<CollectorProcess> live = new CopyOnWriteArrayList<>();
      for (String id : List.of("alarm-a", "alarm-b", "alarm-c")) {
        live.add(CollectorProcess.start(id, env));
      }
      AtomicBoolean sending = new AtomicBoolean(true);
      Thread traffic = new Thread(() -> sendSlowReviews(live, sending), "slow-reviews");
      try {
        for (CollectorProcess c : live) {
          c.awaitReady();
        }
        long now = System.currentTimeMillis();
        for (int m = 3; m >= 1; m--) {
          for (CollectorProcess c : live) {
            assertThat(slowReviews(c, now - m * 60_000L)).isTrue();
          }
        }
        traffic.start();

        awaitCalls(hooks, 1, 60);
        Poll.stays("the first minute's alarm, once", Duration.ofSeconds(3), () -> hooks.to("/webhook").size() == 1);
        CollectorProcess winner = firedBy(live);
        int firedBeforeKill = fired(winner);
        assertThat(fired(live)).as("fired by one collector only").isEqualTo(1);
        winner.kill();
        live.remove(winner);

        awaitCalls(hooks, 2, 100);
        Poll.stays("no alarm delivered twice", Duration.ofSeconds(3), () -> {
          List<String> delivered = uuids(hooks);
          return delivered.size() == Set.copyOf(delivered).size();
        });
        sending.set(false);
        traffic.join(10_000);
        int calls = hooks.to("/webhook").size();
        assertThat(fired(live) + firedBeforeKill).as("every alarm fired once across the collectors").isEqualTo(calls);

        List<String> uuids = uuids(hooks);
        Set<String> startTimes = new HashSet<>();
        for (HookReceiver.Request r : hooks.to("/webhook")) {
          JSON.readTree(r.body()).forEach(m -> startTimes.add(m.get("startTime").asText()));
        }
        assertThat(uuids).as("one call per minute, none twice").hasSize(calls).doesNotHaveDuplicates();
        assertThat(storedAlarms(live.get(0))).as("the alarms stored are the ones the webhook got")
            .isEqualTo(startTimes);
      } finally {
        sending.set(false);
        live.forEach(CollectorProcess::close);
      }
    }
  }

  private static int fired(CollectorProcess c) throws Exception {
    Matcher m = FIRED.matcher(c.get("/metrics"));
    return m.find() ? (int) Double.parseDouble(m.group(1)) : 0;
  }

  private static int fired(List<CollectorProcess> collectors) throws Exception {
    int total = 0;
    for (CollectorProcess c : collectors) {
      total += fired(c);
    }
    return total;
  }

  private static CollectorProcess firedBy(List<CollectorProcess> collectors) throws Exception {
    for (CollectorProcess c : collectors) {
      if (fired(c) > 0) {
        return c;
      }
    }
    throw new AssertionError("no collector counted the alarm it fired");
  }

  private static void awaitCalls(HookReceiver hooks, int calls, int seconds) throws Exception {
    Poll.until(calls + " webhook calls", Duration.ofSeconds(seconds), () -> hooks.to("/webhook").size() >= calls);
  }

  /** The uuids of the alarms the webhook got, in order. */
  private static List<String> uuids(HookReceiver hooks) throws Exception {
    List<String> uuids = new ArrayList<>();
    for (HookReceiver.Request r : hooks.to("/webhook")) {
      JSON.readTree(r.body()).forEach(m -> uuids.add(m.get("uuid").asText()));
    }
    return uuids;
  }

  private static Set<String> storedAlarms(CollectorProcess c) throws Exception {
    long now = System.currentTimeMillis();
    String query = "{ getAlarm(duration: {start: \"" + MINUTE.format(Instant.ofEpochMilli(now - 10 * 60_000L))
        + "\", end: \"" + MINUTE.format(Instant.ofEpochMilli(now + 60_000L)) + "\", step: MINUTE},"
        + " paging: {pageNum: 1, pageSize: 50}) { msgs { id message startTime } } }";
    HttpResponse<String> r = TestServer.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + c.httpPort + "/graphql")).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("query", query)))).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode msgs = JSON.readTree(r.body()).get("data").get("getAlarm").get("msgs");
    // getAlarm answers no uuid: each stored alarm is matched to its webhook call by its start time.
    Set<String> out = new HashSet<>();
    msgs.forEach(m -> out.add(m.get("startTime").asText()));
    return out;
  }

  private static void sendSlowReviews(List<CollectorProcess> live, AtomicBoolean sending) {
    int i = 0;
    while (sending.get()) {
      List<CollectorProcess> now = List.copyOf(live);
      if (!now.isEmpty()) {
        slowReviews(now.get(i++ % now.size()), System.currentTimeMillis());
      }
      try {
        Thread.sleep(500); // paces the slow calls: one stream every 500 ms, across the minutes
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static boolean slowReviews(CollectorProcess c, long time) {
    HTTPServiceMeshMetric call = HTTPServiceMeshMetric.newBuilder().setStartTime(time).setEndTime(time + 1500)
        .setLatency(1500).setSourceServiceName("productpage").setSourceServiceInstance("productpage-v1")
        .setDestServiceName("reviews").setDestServiceInstance("reviews-v1").setEndpoint("GET:/reviews")
        .setResponseCode(200).setStatus(true).setProtocol(Protocol.HTTP).setDetectPoint(DetectPoint.server)
        .setTlsMode("NONE").build();
    try {
      ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub = GrpcClients
          .builder("http://" + c.grpcAddress()).build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
      return TestServer.clientStream(stub::collect, List.of(ServiceMeshMetrics.newBuilder()
          .setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addMetrics(call)).build())).isOk();
    } catch (Exception e) {
      return false; // the killed collector
    }
  }
}
