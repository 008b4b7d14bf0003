package io.sextant.core.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.dispatch.RecordKindDispatcher;
import io.sextant.core.metric.MetricFamilies;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the registry lists from a minute's snapshots. */
class EntityRegistryTest {
  @Test
  void anEndpointNamedAsAnInstanceOfItsServiceIsListedToo() {
    Aggregator aggregator = new Aggregator(MetricFamilies.catalog(100), RecordKindDispatcher.standard(1000),
        new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC()), new AggregatorLimits(1000, 60, 10),
        new SimpleMeterRegistry());
    long now = System.currentTimeMillis();
    // The same name for a pod and a path: SkyWalking gives both the same id under the service.
    aggregator.offer(new CallRecord(now, now + 5, "a", "a-0", "b", "same", "same", 5, 200, true, CallProtocol.HTTP,
        DetectPoint.SERVER, "", "", 0, 0, Layer.MESH, Map.of(), Map.of()));
    List<String> instances = new ArrayList<>();
    List<String> endpoints = new ArrayList<>();
    EntityRegistry registry = new EntityRegistry(1000);
    for (Snapshot s : aggregator.collect(Long.MAX_VALUE, true)) {
      registry.describe(s, new EntitySink() {
        @Override
        public void service(ServiceMeta service) {}

        @Override
        public void instance(InstanceMeta instance) {
          instances.add(instance.name());
        }

        @Override
        public void endpoint(EndpointMeta endpoint) {
          endpoints.add(endpoint.name());
        }

        @Override
        public void edge(long minuteBucket, Edge edge) {}
      });
    }
    assertThat(instances).containsExactly("same");
    assertThat(endpoints).containsExactly("same");
  }
}
