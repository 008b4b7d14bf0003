package io.sextant.server.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.ChaosProxy;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What Elasticsearch adds over the embedded store: data outlives a collector, several collectors
 * share one cluster and answer the same totals, and an outage loses nothing that was accepted.
 */
class ElasticsearchDurabilityIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = new ElasticsearchExtension();
  private static final TimeBuckets BUCKETS = new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC());

  private static Map<String, String> onEs(String prefix, String collector) {
    Map<String, String> c = new HashMap<>();
    c.put("storage.selector", "elasticsearch");
    c.put("storage.elasticsearch.hosts", ES.hostAndPort());
    c.put("storage.elasticsearch.indexPrefix", prefix);
    c.put("core.collectorId", collector);
    return c;
  }

  private static double cpm(TestServer s, String service, long minute) {
    Double v = s.server.query().metrics().read("service_cpm", Map.of(),
        new MqeEntity(service, true, null, null, null, null, null, null, null, null), List.of(minute), Step.MINUTE)
        .get(0).values()[0];
    return v == null ? 0 : v;
  }

  private static String firstCallEdge(TestServer s, String duration) throws Exception {
    return s.data("{ getGlobalTopology(duration: " + duration + ") { calls { id detectPoints } } }")
        .get("getGlobalTopology").get("calls").toString();
  }

  @Test
  void everythingIsAnsweredAfterARestart() throws Exception {
    long time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;
    long minute = BUCKETS.minuteBucket(time);
    TestServer first = new TestServer(onEs("restart", "c1"));
    assertThat(first.stream(Bookinfo.standard(time).messages(5)).getCode()).isEqualTo(Status.Code.OK);
    first.flush();
    String duration = "{start: \"" + TimeBuckets.format(minute, Step.MINUTE) + "\", end: \""
        + TimeBuckets.format(minute, Step.MINUTE) + "\", step: MINUTE}";
    String edgesBefore = firstCallEdge(first, duration);
    first.close();

    TestServer second = new TestServer(onEs("restart", "c1"));
    try {
      assertThat(cpm(second, "productpage", minute)).isEqualTo(10);
      assertThat(cpm(second, "reviews", minute)).isEqualTo(8);
      assertThat(firstCallEdge(second, duration)).isEqualTo(edgesBefore).contains("CLIENT", "SERVER");
      // Every Bookinfo service that reports its own server side (the gateway reports only its calls out).
      assertThat(second.data("{ listServices(layer: \"MESH\") { name } }").get("listServices").findValuesAsText("name"))
          .containsExactlyInAnyOrder("details", "mongodb", "productpage", "ratings", "reviews");
      // The restarted collector adds to, never overwrites, what the first run wrote.
      assertThat(second.stream(Bookinfo.standard(time).messages(5)).getCode()).isEqualTo(Status.Code.OK);
      second.flush();
      assertThat(cpm(second, "productpage", minute)).isEqualTo(20);
    } finally {
      second.close();
    }
  }

  @Test
  void twoCollectorsAnswerTheExactTotals() throws Exception {
    long time = (System.currentTimeMillis() / 60_000 - 3) * 60_000 + 1000;
    long minute = BUCKETS.minuteBucket(time);
    List<ServiceMeshMetrics> all = Bookinfo.standard(time).messages(1);
    List<ServiceMeshMetrics> half1 = new ArrayList<>();
    List<ServiceMeshMetrics> half2 = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      (i % 2 == 0 ? half1 : half2).add(all.get(i));
    }
    TestServer a = new TestServer(onEs("pair", "a"));
    TestServer b = new TestServer(onEs("pair", "b"));
    try {
      assertThat(a.stream(half1).getCode()).isEqualTo(Status.Code.OK);
      assertThat(b.stream(half2).getCode()).isEqualTo(Status.Code.OK);
      a.flush();
      b.flush();
      for (TestServer s : List.of(a, b)) {
        assertThat(cpm(s, "productpage", minute)).isEqualTo(10);
        assertThat(cpm(s, "reviews", minute)).isEqualTo(8);
        assertThat(s.server.query().metrics().read("service_sla", Map.of(),
            new MqeEntity("reviews", true, null, null, null, null, null, null, null, null), List.of(minute),
            Step.MINUTE).get(0).values()[0]).isEqualTo(8750.0);
        assertThat(s.server.query().metrics().read("service_percentile", Map.of("p", "50"),
            new MqeEntity("productpage", true, null, null, null, null, null, null, null, null), List.of(minute),
            Step.MINUTE).get(0).values()[0]).isBetween(49.0, 51.0);
      }
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void anOutageLosesNothingThatWasAccepted() throws Exception {
    TestServer s = new TestServer(onEs("outage", "c1"));
    try {
      long start = System.currentTimeMillis();
      long sent = 0;
      boolean stopped = false;
      boolean restarted = false;
      Map<Long, Long> perMinute = new HashMap<>();
      // 80 s of steady traffic (one server-side call per 100 ms), with Elasticsearch down from
      // second 10 to second 70.
      while (System.currentTimeMillis() - start < 80_000) {
        long now = System.currentTimeMillis();
        if (!stopped && now - start > 10_000) {
          ES.stop();
          stopped = true;
        }
        if (stopped && !restarted && now - start > 70_000) {
          ES.start();
          restarted = true;
        }
        assertThat(s.stream(new Bookinfo(now).calls("client", "client-0", "steady", "steady-0", "GET:/", 1, 5, 0, 0,
            org.apache.skywalking.apm.network.servicemesh.v3.Protocol.HTTP, false, true).messages(1)).getCode())
            .isEqualTo(Status.Code.OK);
        sent++;
        perMinute.merge(BUCKETS.minuteBucket(now), 1L, Long::sum);
        Thread.sleep(100); // paces the steady traffic across the outage's timeline
      }
      s.flush();
      double counted = 0;
      for (long minute : perMinute.keySet()) {
        counted += cpm(s, "steady", minute);
      }
      assertThat(counted).isEqualTo(sent);
      String metrics = s.get("/metrics");
      assertThat(metrics).contains("sextant_flush_partials_dropped_total 0.0");
      // The outage was real: a write failed, then the writer waited on the health probe (one per
      // 200 ms flush interval for a minute) instead of sending batches into the dead store.
      assertThat(counter(metrics, "sextant_flush_failures_total")).isGreaterThanOrEqualTo(1);
      assertThat(counter(metrics, "sextant_flush_storage_unavailable_total")).isGreaterThan(10);
    } finally {
      s.close();
    }
  }

  /**
   * Chaos between a collector and Elasticsearch, through a proxy: every connection reset, every
   * chunk delayed, requests swallowed without an answer (half-open), every request answered 429
   * and then 503, in turns, under steady traffic. Afterwards the totals are exactly what was
   * accepted, and nothing was dropped.
   */
  @Test
  void resetsDelaysHalfOpenConnectionsAnd429And503LoseNothing() throws Exception {
    try (ChaosProxy proxy = new ChaosProxy(ES.hostAndPort())) {
      Map<String, String> config = onEs("chaos", "c1");
      config.put("storage.elasticsearch.hosts", proxy.hostAndPort());
      config.put("storage.elasticsearch.requestTimeoutMillis", "2000");
      config.put("core.flushIntervalMillis", "500");
      TestServer s = new TestServer(config);
      try {
        long start = System.currentTimeMillis();
        long sent = 0;
        Map<Long, Long> perMinute = new HashMap<>();
        List<ChaosProxy.Mode> turns = List.of(ChaosProxy.Mode.PASS, ChaosProxy.Mode.RESET, ChaosProxy.Mode.DELAY,
            ChaosProxy.Mode.BLACKHOLE, ChaosProxy.Mode.TOO_MANY_REQUESTS, ChaosProxy.Mode.UNAVAILABLE,
            ChaosProxy.Mode.RESET, ChaosProxy.Mode.PASS);
        // 32 s of steady traffic, the proxy's behaviour changing every 4 s.
        while (System.currentTimeMillis() - start < 32_000) {
          long now = System.currentTimeMillis();
          proxy.mode(turns.get((int) Math.min(turns.size() - 1, (now - start) / 4_000)));
          assertThat(s.stream(new Bookinfo(now).calls("client", "client-0", "chaotic", "chaotic-0", "GET:/", 1, 5, 0,
              0, org.apache.skywalking.apm.network.servicemesh.v3.Protocol.HTTP, false, true).messages(1)).getCode())
              .isEqualTo(Status.Code.OK);
          sent++;
          perMinute.merge(BUCKETS.minuteBucket(now), 1L, Long::sum);
          Thread.sleep(50); // paces the steady traffic across the proxy's turns
        }
        proxy.mode(ChaosProxy.Mode.PASS);
        s.flush();
        TestServer reader = new TestServer(onEs("chaos", "reader")); // reads Elasticsearch itself, no proxy
        try {
          double stored = 0;
          for (long minute : perMinute.keySet()) {
            stored += cpm(reader, "chaotic", minute);
          }
          assertThat(stored).as("calls stored, read by another collector").isEqualTo(sent);
        } finally {
          reader.close();
        }
        String metrics = s.get("/metrics");
        System.out.printf("chaos: %d calls sent, all stored; %.0f failed writes, %.0f cycles waiting for storage%n",
            sent, counter(metrics, "sextant_flush_failures_total"),
            counter(metrics, "sextant_flush_storage_unavailable_total"));
        assertThat(metrics).contains("sextant_flush_partials_dropped_total 0.0");
        assertThat(counter(metrics, "sextant_flush_failures_total")).as("the chaos was felt").isGreaterThanOrEqualTo(1);
      } finally {
        s.close();
      }
    }
  }

  private static double counter(String metrics, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(name + " ([0-9.E]+)").matcher(metrics);
    assertThat(m.find()).as(name).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
