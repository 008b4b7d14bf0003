package io.sextant.receiver.envoy.als;

import static io.sextant.receiver.envoy.als.Proxy.Role.SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Entries with missing or absurd fields are counted by reason and never throw. */
class AlsBadInputTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AccessLogConverter converter = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS),
      new EndpointNamer("", 100, 100, () -> {}), null, 64, new AlsMetrics(registry));
  private final ServiceIdentity self = new ServiceIdentity("reviews.default", "reviews-v1-0", Map.of());

  private double dropped(String reason) {
    var c = registry.find("sextant_als_entries_dropped").tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void entriesThatCannotBeAttributedAreCountedByReason() {
    assertThat(converter.http(HTTPAccessLogEntry.getDefaultInstance(), self, SIDECAR)).isEmpty();
    assertThat(converter.tcp(TCPAccessLogEntry.getDefaultInstance(), self, SIDECAR)).isEmpty();
    assertThat(dropped("missing_common_properties")).isEqualTo(2);

    HTTPAccessLogEntry noDirection = HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder().setUpstreamCluster("BlackHoleCluster")).build();
    assertThat(converter.http(noDirection, self, SIDECAR)).isEmpty();
    assertThat(dropped("direction_unknown")).isEqualTo(1);

    HTTPAccessLogEntry hugePath = HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder().setUpstreamCluster("inbound|9080||"))
        .setRequest(HTTPRequestProperties.newBuilder().setPath("/" + "x".repeat(100))).build();
    assertThat(converter.http(hugePath, self, SIDECAR)).isEmpty();
    assertThat(dropped("string_too_long")).isEqualTo(1);
  }

  @Test
  void absurdTimesAndDurationsAreClampedNotFatal() {
    HTTPAccessLogEntry absurd = HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder()
            .setUpstreamCluster("inbound|9080||")
            .setStartTime(Timestamp.newBuilder().setSeconds(System.currentTimeMillis() / 1000))
            .setTimeToLastDownstreamTxByte(Duration.newBuilder().setSeconds(-30))
            .setTimeToFirstUpstreamRxByte(Duration.newBuilder().setSeconds(9_000_000)))
        .build();
    List<CallRecord> records = converter.http(absurd, self, SIDECAR);
    // Counted for the service (caller unknown), with a latency of at least 1 ms and no negative
    // sidecar latency.
    assertThat(records).hasSize(1);
    assertThat(records.get(0).latencyMillis()).isEqualTo(1);
    assertThat(records.get(0).internalResponseLatencyNanos()).isGreaterThanOrEqualTo(0);
    assertThat(records.get(0).sourceService()).isEmpty();

    // Found by AccessLogConverterProperties (shrunk): a client side 2,147,484 s long wrapped to a
    // negative int latency.
    HTTPAccessLogEntry longClientSide = HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder()
            .setTimeToFirstUpstreamTxByte(Duration.newBuilder().setSeconds(-2_147_297))
            .setTimeToLastUpstreamRxByte(Duration.newBuilder().setSeconds(187))
            .putFilterStateObjects("upstream_peer", Any.pack(Struct.newBuilder()
                .putFields("NAME", Value.newBuilder().setStringValue("10.0.0.7").build())
                .putFields("WORKLOAD_NAME", Value.newBuilder().setStringValue("details").build()).build())))
        .build();
    assertThat(converter.http(longClientSide, self, SIDECAR)).singleElement()
        .satisfies(r -> assertThat(r.latencyMillis()).isEqualTo(Integer.MAX_VALUE));

    HTTPAccessLogEntry beforeEpoch = absurd.toBuilder().setCommonProperties(absurd.getCommonProperties().toBuilder()
        .setStartTime(Timestamp.newBuilder().setSeconds(-5))).build();
    assertThat(converter.http(beforeEpoch, self, SIDECAR)).isEmpty();
    assertThat(dropped("bad_time")).isEqualTo(1);
  }
}
