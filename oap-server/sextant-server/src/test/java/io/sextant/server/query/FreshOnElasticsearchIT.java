package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.poll.Poll;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fresh reads on Elasticsearch with two collectors: each answers its own unwritten data at once
 * (a closed minute already written, late records into it, the open minute) and the other's within
 * the read staleness bound once that one wrote; and what it answers before writing is exactly
 * what a collector with no data of its own answers from the store afterwards.
 */
class FreshOnElasticsearchIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();
  private static final TimeBuckets BUCKETS = new TimeBuckets(ZoneId.of("UTC"), Clock.systemUTC());
  private static final List<String[]> PROBES = List.of(
      new String[] {"service_cpm", "serviceName: \"productpage\""},
      new String[] {"service_cpm", "serviceName: \"reviews\""},
      new String[] {"service_resp_time", "serviceName: \"productpage\""},
      new String[] {"service_sla", "serviceName: \"reviews\""},
      new String[] {"service_apdex", "serviceName: \"productpage\""},
      new String[] {"service_percentile{p='50,75,90,95,99'}", "serviceName: \"productpage\""},
      new String[] {"service_instance_cpm", "serviceName: \"reviews\", serviceInstanceName: \"reviews-v2-0\""},
      new String[] {"endpoint_cpm", "serviceName: \"productpage\", endpointName: \"GET:/productpage\""},
      new String[] {"endpoint_resp_time", "serviceName: \"reviews\", endpointName: \"GET:/reviews/0\""},
      new String[] {"service_relation_server_cpm",
          "serviceName: \"productpage\", destServiceName: \"reviews\", destNormal: true"});

  /** Nothing is written unless the test flushes (the first automatic collection is a minute away). */
  private static Map<String, String> onEs(String collector) {
    Map<String, String> c = new HashMap<>();
    c.put("storage.selector", "elasticsearch");
    c.put("storage.elasticsearch.hosts", ES.hostAndPort());
    c.put("storage.elasticsearch.indexPrefix", "fresh");
    c.put("core.collectorId", collector);
    c.put("core.flushIntervalMillis", "60000");
    c.put("core.closedCollectIntervalMillis", "60000");
    c.put("core.rollupIntervalMillis", "60000");
    return c;
  }

  @Test
  void ownDataAtOnceOthersAfterTheirWriteAndExactlyWhatTheStoreAnswersLater() throws Exception {
    long now = System.currentTimeMillis();
    long old = (now / 60_000 - 3) * 60_000 + 1000; // a minute that closes at the first flush
    long from = BUCKETS.minuteBucket(old);
    long to = BUCKETS.minuteBucket(now);
    String duration = "{start: \"" + TimeBuckets.format(from, Step.MINUTE) + "\", end: \""
        + TimeBuckets.format(to, Step.MINUTE) + "\", step: MINUTE}";
    String current = "{start: \"" + TimeBuckets.format(to, Step.MINUTE) + "\", end: \""
        + TimeBuckets.format(to, Step.MINUTE) + "\", step: MINUTE}";
    try (TestServer a = new TestServer(onEs("a")); TestServer b = new TestServer(onEs("b"))) {
      assertThat(a.stream(Bookinfo.standard(old).messages(5)).getCode()).isEqualTo(Status.Code.OK);
      a.flush(); // the old minute is closed and stored
      assertThat(a.stream(Bookinfo.standard(old).messages(7)).getCode()).isEqualTo(Status.Code.OK); // late
      assertThat(a.stream(Bookinfo.standard(now).messages(3)).getCode()).isEqualTo(Status.Code.OK);
      assertThat(b.stream(Bookinfo.standard(now).messages(4)).getCode()).isEqualTo(Status.Code.OK);

      assertThat(value(a, "service_cpm", "serviceName: \"productpage\"", current)).as("a's own, unwritten")
          .isEqualTo("10");
      assertThat(value(b, "service_cpm", "serviceName: \"productpage\"", current)).as("b's own, unwritten")
          .isEqualTo("10");
      assertThat(sum(a, "service_cpm", "serviceName: \"productpage\"", duration))
          .as("the stored closed minute, its late records and the open minute").isEqualTo(30);
      b.flush();
      // Another collector's data shows within storage.elasticsearch.readStalenessMillis (1 s).
      long written = System.nanoTime();
      Poll.until("b's once written", Duration.ofSeconds(5),
          () -> value(a, "service_cpm", "serviceName: \"productpage\"", current), "20"::equals);
      assertThat((System.nanoTime() - written) / 1_000_000).as("ms until b's write showed on a").isLessThan(3_000);

      Map<String, String> fresh = answers(a, duration);
      a.flush();
      try (TestServer reader = new TestServer(onEs("reader"))) {
        assertThat(answers(reader, duration)).isEqualTo(fresh);
      }
      assertThat(answers(a, duration)).isEqualTo(fresh);
    }
  }

  private static Map<String, String> answers(TestServer s, String duration) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    for (String[] probe : PROBES) {
      out.put(probe[0] + " @ " + probe[1], results(s, probe[0], probe[1], duration).toString());
    }
    return out;
  }

  private static JsonNode results(TestServer s, String expression, String entity, String duration)
      throws Exception {
    JsonNode r = s.data("{ r: execExpression(expression: \"" + expression.replace("'", "\\u0027")
        + "\", entity: {" + entity + ", normal: true}, duration: " + duration
        + ") { type error results { metric { labels { key value } } values { id value } } } }").get("r");
    assertThat(r.get("error").isNull()).as("%s: %s", expression, r.get("error")).isTrue();
    return r.get("results");
  }

  private static String value(TestServer s, String expression, String entity, String duration) throws Exception {
    return results(s, expression, entity, duration).get(0).get("values").get(0).get("value").asText();
  }

  private static long sum(TestServer s, String expression, String entity, String duration) throws Exception {
    long total = 0;
    for (JsonNode v : results(s, expression, entity, duration).get(0).get("values")) {
      total += v.get("value").isNull() ? 0 : v.get("value").asLong();
    }
    return total;
  }
}
