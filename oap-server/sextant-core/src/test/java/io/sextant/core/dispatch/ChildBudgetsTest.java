package io.sextant.core.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.api.receiver.Admission;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.AggregatorLimits;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.MetricFamilies;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One service that explodes its endpoints and instances folds the excess into its own overflow
 * entities, counted and named; a well-behaved neighbour, aggregated beside it under a tight
 * accumulator bound, keeps every record and every name.
 */
class ChildBudgetsTest {
  private final TimeBuckets buckets = new TimeBuckets(ZoneOffset.UTC, Clock.systemUTC());
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Aggregator aggregator = new Aggregator(MetricFamilies.catalog(100),
      RecordKindDispatcher.standard(100_000, new ChildBudgets(50, 20, registry)), buckets,
      new AggregatorLimits(1000, 60, 10), registry);

  @Test
  void aNoisyServiceFoldsItsExcessWhileItsNeighbourStaysExact() {
    long now = System.currentTimeMillis();
    for (int i = 0; i < 5000; i++) {
      assertThat(aggregator.offer(call(now, "noisy", "noisy-" + i, "GET:/item/" + i))).isEqualTo(Admission.ACCEPTED);
      assertThat(aggregator.offer(call(now, "quiet", "quiet-" + i % 3, "GET:/home"))).isEqualTo(Admission.ACCEPTED);
    }
    List<Snapshot> minute = aggregator.collect(Long.MAX_VALUE, true);

    assertThat(names(minute, Scope.ENDPOINT, "noisy")).hasSize(51)
        .contains(ChildBudgets.OVERFLOW, "GET:/item/0", "GET:/item/49");
    assertThat(names(minute, Scope.SERVICE_INSTANCE, "noisy")).hasSize(21).contains(ChildBudgets.OVERFLOW);
    assertThat(calls(minute, Scope.SERVICE, "noisy")).as("every call still counts for the service").isEqualTo(5000);
    assertThat(calls(minute, Scope.ENDPOINT, "noisy")).as("and for its endpoints, folded or not").isEqualTo(5000);

    assertThat(names(minute, Scope.SERVICE_INSTANCE, "quiet")).containsExactlyInAnyOrder("quiet-0", "quiet-1",
        "quiet-2");
    assertThat(calls(minute, Scope.SERVICE, "quiet")).isEqualTo(5000);
    assertThat(registry.get("sextant_entities_folded").tag("kind", "endpoint").tag("service", "noisy").counter()
        .count()).isEqualTo(4950);
    assertThat(registry.get("sextant_entities_folded").tag("kind", "instance").tag("service", "noisy").counter()
        .count()).isEqualTo(4980);
    assertThat(minute).filteredOn(s -> s.entity().scope() == Scope.SERVICE_INSTANCE
        && ChildBudgets.OVERFLOW.equals(s.entity().childName())).singleElement()
        .satisfies(s -> assertThat(s.entity().attributes()).as("no one pod's properties").isEmpty());
  }

  private static Set<String> names(List<Snapshot> snapshots, Scope scope, String service) {
    return snapshots.stream().map(Snapshot::entity).filter(e -> e.scope() == scope && e.serviceName().equals(service))
        .map(EntityRef::childName).collect(Collectors.toSet());
  }

  private static long calls(List<Snapshot> snapshots, Scope scope, String service) {
    return snapshots.stream().filter(s -> s.entity().scope() == scope && s.entity().serviceName().equals(service))
        .mapToLong(s -> s.states()[0].a()).sum();
  }

  private static CallRecord call(long time, String service, String instance, String endpoint) {
    return new CallRecord(time, time + 5, "client", "client-0", service, instance, endpoint, 5, 200, true,
        CallProtocol.HTTP, DetectPoint.SERVER, "", "", 0, 0, Layer.MESH, Map.of("pod", instance), Map.of());
  }
}
