package io.sextant.storage.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.ServiceMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Services, endpoints and edges stay within their bytes under a flood of new names, and the flood
 * is what goes: the services seen before it stay listed.
 */
class MemoryMetadataBoundsTest {
  private static final long EARLIER = 202611250900L;
  private static final long NOW = 202611251000L;

  private static ServiceMeta service(String name, long firstSeen, long lastSeen) {
    return new ServiceMeta(name + ".id", name, true, Set.of("MESH"), firstSeen, lastSeen);
  }

  @Test
  void aFloodOfNewServicesEvictsItselfBeforeTheServicesSeenBefore() {
    long maxBytes = 2 << 20;
    MemoryMetadataStore store = new MemoryMetadataStore(maxBytes);
    List<ServiceMeta> known = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      known.add(service("known-" + i, EARLIER, NOW));
    }
    store.upsertServices(known);
    long peak = 0;
    for (int batch = 0; batch < 100; batch++) {
      List<ServiceMeta> flood = new ArrayList<>();
      List<EndpointMeta> endpoints = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        String name = "flood-" + batch + "-" + i;
        flood.add(service(name, NOW, NOW));
        endpoints.add(new EndpointMeta(name + ".ep", "known-0.id", "GET:/" + name, NOW, NOW));
      }
      store.upsertServices(flood);
      store.upsertEndpoints(endpoints);
      store.upsertServices(known); // the mesh's own services report every minute
      peak = Math.max(peak, store.bytes());
    }
    assertThat(peak).isLessThanOrEqualTo(maxBytes + 64 * 1024);
    assertThat(store.evicted()).isGreaterThan(150_000);
    assertThat(store.services()).extracting(ServiceMeta::name).containsAll(known.stream().map(ServiceMeta::name)
        .toList());
    store.expire(NOW + 1);
    assertThat(store.bytes()).isZero();
  }

  @Test
  void aFloodOfNewEdgesForgetsItselfFirstAndStaysWithinItsBytes() {
    long maxBytes = 1 << 20;
    MemoryTopologyStore store = new MemoryTopologyStore(maxBytes);
    Edge steady = new Edge(Scope.SERVICE, "a", "b", DetectPoint.SERVER, "http");
    for (long minute = EARLIER; minute < EARLIER + 5; minute++) {
      store.write(List.of(steady), minute);
    }
    for (int batch = 0; batch < 50; batch++) {
      List<Edge> edges = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        edges.add(new Edge(Scope.SERVICE, "src-" + batch + "-" + i, "dest", DetectPoint.SERVER, "http"));
      }
      store.write(edges, NOW);
      assertThat(store.bytes()).isLessThanOrEqualTo(maxBytes);
    }
    for (long minute = EARLIER; minute < EARLIER + 5; minute++) {
      assertThat(store.read(Scope.SERVICE, minute, minute)).as("minute %d", minute).containsExactly(steady);
    }
    assertThat(store.read(Scope.SERVICE, NOW, NOW)).isNotEmpty();
    assertThat(store.evicted()).isGreaterThan(40_000);
    store.expire(NOW + 1);
    assertThat(store.bytes()).isZero();
  }

  @Test
  void withoutNewcomersTheOldestMinutesAreForgotten() {
    MemoryTopologyStore store = new MemoryTopologyStore(160 << 10); // about four minutes of these edges
    List<Edge> edges = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      edges.add(new Edge(Scope.SERVICE, "src-" + i, "dest", DetectPoint.SERVER, "http"));
    }
    for (long minute = EARLIER; minute < EARLIER + 10; minute++) {
      store.write(edges, minute); // the same edges every minute: none is new
      assertThat(store.bytes()).isLessThanOrEqualTo(160 << 10);
    }
    assertThat(store.read(Scope.SERVICE, EARLIER, EARLIER)).isEmpty();
    assertThat(store.read(Scope.SERVICE, EARLIER + 9, EARLIER + 9)).hasSize(200);
  }
}
