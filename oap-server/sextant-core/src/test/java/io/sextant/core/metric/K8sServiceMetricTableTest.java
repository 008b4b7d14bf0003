package io.sextant.core.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.KernelField;
import io.sextant.api.model.KernelOperation;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.api.time.Step;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** SkyWalking's ebpf.oal as a table: every row a definition, each seeing only the records its row filters for. */
class K8sServiceMetricTableTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(500);

  @Test
  void everyRowIsADefinitionOfTheKernelSourceInItsScope() {
    List<MetricDefinition> kernel = catalog.all().stream().filter(d -> d.source() == Source.KERNEL).toList();
    Map<Scope, Long> perScope = kernel.stream().collect(Collectors.groupingBy(MetricDefinition::scope,
        Collectors.counting()));
    assertThat(kernel).hasSize(296);
    assertThat(perScope).containsExactlyInAnyOrderEntriesOf(Map.of(Scope.SERVICE, 50L, Scope.SERVICE_INSTANCE, 50L,
        Scope.ENDPOINT, 15L, Scope.SERVICE_RELATION, 92L, Scope.SERVICE_INSTANCE_RELATION, 89L));
    assertThat(kernel).allMatch(d -> d.name().startsWith("kubernetes_service_"));
    assertThat(catalog.find("kubernetes_service_percentile").orElseThrow().function().labelValues())
        .containsExactly("50", "75", "90", "95", "99");
  }

  @Test
  void aMetricCountsOnlyItsOperationAndCondition() {
    KernelRecord write = record(KernelOperation.WRITE, 0);
    KernelRecord notFound = record(KernelOperation.HTTP, 404);
    assertThat(value("kubernetes_service_write_cpm", write, notFound)).isEqualTo(1);
    assertThat(value("kubernetes_service_write_package_size", write, notFound)).isEqualTo(1500);
    assertThat(value("kubernetes_service_read_cpm", write, notFound)).isNull();
    assertThat(value("kubernetes_service_http_call_cpm", write, notFound)).isEqualTo(1);
    assertThat(value("kubernetes_service_http_status_4xx_cpm", write, notFound)).isEqualTo(1);
    assertThat(value("kubernetes_service_http_status_5xx_cpm", write, notFound)).isNull();
    // 404 is a success below 500, as SkyWalking counts it.
    assertThat(value("kubernetes_service_http_call_successful_rate", write, notFound)).isEqualTo(10_000);
    assertThat(value("kubernetes_service_http_call_time", write, notFound)).isEqualTo(12);
  }

  private Long value(String metric, KernelRecord... records) {
    MetricDefinition d = catalog.find(metric).orElseThrow();
    MetricState state = new MetricState();
    for (KernelRecord r : records) {
      if (d.side().matches(r.detectPoint())) {
        d.function().add(state, r);
      }
    }
    return d.function().value(state, Step.MINUTE, 0);
  }

  private static KernelRecord record(KernelOperation op, int status) {
    long[] values = new long[KernelField.count()];
    values[KernelField.PACKAGE_SIZE.ordinal()] = 1500;
    values[KernelField.LATENCY.ordinal()] = 12;
    return new KernelRecord(0, Layer.K8S_SERVICE, DetectPoint.SERVER, "details.default", "details-1",
        "productpage.default", "productpage-1", op, status < 500, status, op == KernelOperation.HTTP ? "GET:/" : "",
        CallProtocol.HTTP, "", values);
  }
}
