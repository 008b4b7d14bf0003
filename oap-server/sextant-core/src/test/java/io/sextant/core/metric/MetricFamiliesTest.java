package io.sextant.core.metric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.metric.EnvoyMetricNames;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.SampleRecord;
import io.sextant.api.model.Scope;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricFamiliesTest {
  private final MetricCatalog catalog = MetricFamilies.catalog(500);

  @Test
  void everyEnvoyNameTheReceiverCanSendHasADefinition() {
    List<String> names = new ArrayList<>(EnvoyMetricNames.INSTANCE_GAUGES);
    for (String suffix : EnvoyMetricNames.CLUSTER_GAUGES) {
      names.add(EnvoyMetricNames.perCluster(suffix));
      if (EnvoyMetricNames.hasRelationForm(suffix)) {
        names.add(EnvoyMetricNames.perRelation(suffix));
      }
    }
    for (String suffix : EnvoyMetricNames.CLUSTER_INCREASES) {
      names.add(EnvoyMetricNames.perCluster(suffix));
      names.add(EnvoyMetricNames.perRelation(suffix));
    }
    names.addAll(EnvoyMetricNames.WORKER_GAUGES);
    names.addAll(EnvoyMetricNames.WORKER_INCREASES);
    names.addAll(EnvoyMetricNames.LISTENER_RATIOS);
    names.add(EnvoyMetricNames.LISTENER_METRICS);
    for (String name : names) {
      assertThat(catalog.find(name)).as(name).hasValueSatisfying(d -> assertThat(d.source()).isEqualTo(Source.SAMPLE));
    }
    assertThat(catalog.all().stream().filter(d -> d.source() == Source.SAMPLE).count()).isEqualTo(names.size());
    assertThat(catalog.find("envoy_sr_cluster_membership_healthy")).isEmpty();
  }

  @Test
  void aSampleFeedsOnlyTheMetricItNames() {
    MetricGroup group = catalog.group(Source.SAMPLE, Scope.SERVICE_INSTANCE);
    MetricState[] states = group.newStates();
    group.add(states, new SampleRecord(0, "", "", "reviews", "reviews-v1", DetectPoint.SERVER, Layer.MESH_DP,
        EnvoyMetricNames.HEAP_MEMORY_USED, "", 4096));
    MetricDefinition[] defs = group.definitions();
    for (int i = 0; i < defs.length; i++) {
      Long value = defs[i].function().value(states[i], io.sextant.api.time.Step.MINUTE, 0);
      if (defs[i].name().equals(EnvoyMetricNames.HEAP_MEMORY_USED)) {
        assertThat(value).isEqualTo(4096L);
      } else {
        assertThat(states[i].a).as(defs[i].name()).isZero();
      }
    }
  }

  @Test
  void familiesArePeersAndANameMayBeDefinedOnce() {
    MetricTable twice = () -> List.of(new MetricDefinition("service_cpm", Source.CALL, Scope.SERVICE, Side.ANY,
        Functions.cpm()));
    assertThatThrownBy(() -> MetricCatalog.of(List.of(new MeshMetricTable(500), twice)))
        .hasMessageContaining("service_cpm");
  }
}
