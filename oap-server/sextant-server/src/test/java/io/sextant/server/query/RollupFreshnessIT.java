package io.sextant.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sextant.server.testing.Bookinfo;
import io.sextant.server.testing.SextantExtension;
import io.sextant.server.testing.TestServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Hour and day values include minutes that are still open, not only closed ones. */
class RollupFreshnessIT {
  @RegisterExtension
  static final SextantExtension SEXTANT = SextantExtension.perClass(Map.of());

  @Test
  void hourAndDayIncludeMinutesStillOpen() throws Exception {
    TestServer sextant = SEXTANT.server();
    long now = System.currentTimeMillis();
    Bookinfo fresh = new Bookinfo(now)
        .calls("", "", "fresh", "fresh-0", "GET:/", 4, 100, 100, 1, Protocol.HTTP, false, true);
    assertThat(sextant.stream(fresh.messages(10)).getCode()).isEqualTo(Status.Code.OK);
    sextant.flush();
    String hour = DateTimeFormatter.ofPattern("yyyy-MM-dd HH").withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(now));
    String day = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(now));
    assertThat(value(sextant, "service_resp_time", "{start: \"" + hour + "\", end: \"" + hour + "\", step: HOUR}"))
        .isEqualTo("250");
    assertThat(value(sextant, "service_sla", "{start: \"" + day + "\", end: \"" + day + "\", step: DAY}"))
        .isEqualTo("7500");
  }

  private static String value(TestServer sextant, String metric, String duration) throws Exception {
    JsonNode r = sextant.data("{ r: execExpression(expression: \"" + metric + "\", entity: {serviceName: \"fresh\"},"
        + " duration: " + duration + ") { error results { values { value } } } }").get("r");
    return r.get("results").get(0).get("values").get(0).get("value").asText();
  }
}
