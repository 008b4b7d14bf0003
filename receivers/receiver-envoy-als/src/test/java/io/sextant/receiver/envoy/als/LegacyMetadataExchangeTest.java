package io.sextant.receiver.envoy.als;

import static io.sextant.receiver.envoy.als.Proxy.Role.SIDECAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.PeerMetadataTest;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Istio before 1.24: the peer comes as a FlatBuffer under the {@code wasm.*} filter-state keys. */
class LegacyMetadataExchangeTest {
  private final AccessLogConverter converter = new AccessLogConverter(new ServiceNaming(ServiceNaming.DEFAULT_LABELS),
      new EndpointNamer("", 100, 100, () -> {}), null, 512, new AlsMetrics(new SimpleMeterRegistry()));
  private final ServiceIdentity ratings = new ServiceIdentity("ratings.bookinfo", "ratings-v1-0", Map.of());

  private static HTTPAccessLogEntry entry(String cluster, String key) {
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(AccessLogCommon.newBuilder()
            .setStartTime(Timestamp.newBuilder().setSeconds(System.currentTimeMillis() / 1000))
            .setUpstreamCluster(cluster)
            .putFilterStateObjects(key, PeerMetadataTest.envoyFilterState(PeerMetadataTest.Node.full().build())))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.POST).setPath("/ratings/0"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(201)))
        .build();
  }

  @Test
  void legacyDownstreamPeerIsTheCaller() {
    List<CallRecord> records = converter.http(entry("inbound|9080||", "wasm.downstream_peer"), ratings, SIDECAR);
    assertThat(records).hasSize(1);
    CallRecord r = records.get(0);
    assertThat(r.detectPoint()).isEqualTo(DetectPoint.SERVER);
    assertThat(r.sourceService()).isEqualTo("reviews.bookinfo");
    assertThat(r.sourceInstance()).isEqualTo("reviews-v2-7d9c8f6b5-x2x4z");
    assertThat(r.destService()).isEqualTo("ratings.bookinfo");
    assertThat(r.endpoint()).isEqualTo("POST:/ratings/0");
    assertThat(r.success()).isTrue();
  }

  @Test
  void legacyUpstreamPeerIsTheCallee() {
    List<CallRecord> records = converter.http(
        entry("outbound|9080||reviews.bookinfo.svc.cluster.local", "wasm.upstream_peer"), ratings, SIDECAR);
    assertThat(records).extracting(CallRecord::detectPoint, CallRecord::sourceService, CallRecord::destService)
        .containsExactly(tuple(DetectPoint.CLIENT, "ratings.bookinfo", "reviews.bookinfo"));
  }
}
