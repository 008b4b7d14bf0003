package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.api.time.Step;
import io.sextant.core.query.MetricQueries;
import io.sextant.core.query.QueryServices;
import io.sextant.core.query.mqe.MqeEntity;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import io.sextant.testkit.poll.Poll;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sent to visible with the default flush intervals: a mesh message sent over gRPC is answered by
 * execExpression over HTTP well within 5 s, because queries read this collector's unwritten data.
 * {@code -Dsextant.freshness.samples=N} takes more samples; {@code -Dsextant.freshness.stored=true}
 * also times when storage alone shows the data (what another collector's queries see).
 */
class FreshnessTest {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HHmm").withZone(ZoneOffset.UTC);

  /** The defaults of the flush intervals, not TestServer's short ones. */
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of("core.flushIntervalMillis", "10000",
      "core.closedCollectIntervalMillis", "2000", "core.rollupIntervalMillis", "60000"));

  @Test
  void sentRecordsAreVisibleWellWithinFiveSeconds() throws Exception {
    int samples = Integer.getInteger("sextant.freshness.samples", 5);
    boolean stored = Boolean.getBoolean("sextant.freshness.stored");
    TestServer sextant = SEXTANT.server();
    MetricQueries storageOnly = QueryServices.over(sextant.server.storage(), sextant.server.query().metrics()
        .catalog()).metrics();
    List<Long> visible = new ArrayList<>();
    List<Long> inStorage = new ArrayList<>();
    List<Long> streamed = new ArrayList<>();
    for (int i = -1; i < samples; i++) { // the first round warms the client, server and JIT up, untimed
      // A random phase of the flush cadence: the wait itself is the point.
      Thread.sleep(ThreadLocalRandom.current().nextLong(1000));
      String service = "fresh-" + i;
      long sent = System.currentTimeMillis();
      Bookinfo calls = new Bookinfo(sent)
          .calls("", "", service, service + "-0", "GET:/", 3, 100, 10, 0, Protocol.HTTP, false, true);
      assertThat(sextant.stream(calls.messages(10)).getCode()).isEqualTo(Status.Code.OK);
      streamed.add(System.currentTimeMillis() - sent);
      Poll.until(service + " visible", Duration.ofSeconds(30), () -> "3".equals(cpm(sextant, service, sent)));
      if (i < 0) {
        streamed.clear();
        continue;
      }
      visible.add(System.currentTimeMillis() - sent);
      if (stored) {
        long minute = Long.parseLong(DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC)
            .format(Instant.ofEpochMilli(sent)));
        MqeEntity entity = new MqeEntity(service, true, null, null, null, null, true, null, null, null);
        Poll.until(service + " stored", Duration.ofSeconds(60), () -> storageOnly.read("service_cpm", Map.of(),
            entity, List.of(minute), Step.MINUTE).get(0).values()[0] != null);
        inStorage.add(System.currentTimeMillis() - sent);
      }
    }
    System.out.printf("sent->visible ms (GraphQL): %s, of which streaming: %s%n", visible, streamed);
    if (stored) {
      System.out.printf("sent->stored ms (other collectors' view): %s%n", inStorage);
    }
    assertThat(visible).allSatisfy(ms -> assertThat(ms).isLessThan(2_000));
  }

  private static String cpm(TestServer sextant, String service, long time) throws Exception {
    String minute = MINUTE.format(Instant.ofEpochMilli(time));
    JsonNode r = sextant.data("{ r: execExpression(expression: \"service_cpm\", entity: {serviceName: \"" + service
        + "\", normal: true}, duration: {start: \"" + minute + "\", end: \"" + minute + "\", step: MINUTE})"
        + " { error results { values { value } } } }").get("r");
    JsonNode values = r.get("results").get(0).get("values");
    return values.isEmpty() || values.get(0).get("value").isNull() ? "" : values.get(0).get("value").asText();
  }
}
