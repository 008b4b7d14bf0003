package io.sextant.core.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Observation;
import io.sextant.api.time.Step;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The mesh metrics Sextant adds to SkyWalking's: the share of an edge's traffic over mutual TLS. */
class MeshMetricTableTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(500);

  @Test
  void theMtlsShareOfAnEdgeCountsWhatTheServersProxyTook() {
    // Three of four calls the server's proxy took came over mutual TLS; client sides never know.
    Observation[] calls = {call(DetectPoint.SERVER, "mTLS"), call(DetectPoint.SERVER, "mTLS"),
        call(DetectPoint.SERVER, "mTLS"), call(DetectPoint.SERVER, "NONE"), call(DetectPoint.CLIENT, "NONE"),
        call(DetectPoint.CLIENT, "NONE")};
    assertThat(value("service_relation_server_mtls_percent", calls)).isEqualTo(7500);
    assertThat(value("service_instance_relation_server_mtls_percent", calls)).isEqualTo(7500);
    assertThat(value("service_relation_server_mtls_percent", call(DetectPoint.CLIENT, "NONE"))).isNull();
    // One-way TLS is not mutual.
    assertThat(value("service_relation_server_mtls_percent", call(DetectPoint.SERVER, "TLS"))).isZero();
    assertThat(value("service_relation_server_tcp_mtls_percent", flow("mTLS"), flow(""))).isEqualTo(5000);
  }

  private Long value(String metric, Observation... records) {
    MetricDefinition d = catalog.find(metric).orElseThrow();
    MetricState state = new MetricState();
    for (Observation r : records) {
      if (d.side().matches(r.detectPoint())) {
        d.function().add(state, r);
      }
    }
    return d.function().value(state, Step.MINUTE, 0);
  }

  private static CallRecord call(DetectPoint side, String tls) {
    return new CallRecord(0, 10, "productpage", "productpage-v1", "reviews", "reviews-v1", "GET:/reviews", 10, 200,
        true, CallProtocol.HTTP, side, tls, "", 0, 0, Layer.MESH, Map.of(), Map.of());
  }

  private static FlowRecord flow(String tls) {
    return new FlowRecord(0, 10, "reviews", "reviews-v1", "mongodb", "mongodb-0", DetectPoint.SERVER, tls, "", 0, 0,
        100, 100, Layer.MESH, Map.of(), Map.of());
  }
}
