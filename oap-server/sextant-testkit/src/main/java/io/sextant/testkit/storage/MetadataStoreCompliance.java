package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.MetadataStore} contract: upserts merge seen times, layers and
 * attributes; reads filter by service, time window and keyword.
 */
public abstract class MetadataStoreCompliance extends StorageCompliance {
  @Test
  void metadataUpsertsMergeSeenTimesLayersAndAttributes() throws Exception {
    storage.metadata().upsertServices(
        List.of(new ServiceMeta("YQ==.1", "a", true, Set.of("MESH"), 202611221005L, 202611221005L)));
    storage.metadata().upsertServices(List.of(
        new ServiceMeta("YQ==.1", "a", true, Set.of("MESH_DP"), 202611221000L, 202611221000L),
        new ServiceMeta("Yg==.1", "b", true, Set.of("MESH"), 202611221000L, 202611221009L)));
    storage.metadata().upsertInstances(List.of(
        new InstanceMeta("YQ==.1_aTE=", "YQ==.1", "i1", "MESH", Map.of("pod", "i1"), 202611221000L, 202611221002L),
        new InstanceMeta("YQ==.1_aTI=", "YQ==.1", "i2", "MESH", Map.of(), 202611221008L, 202611221009L)));
    storage.metadata().upsertInstances(List.of(
        new InstanceMeta("YQ==.1_aTE=", "YQ==.1", "i1", "MESH", Map.of("node", "n1"), 202611221003L, 202611221003L)));
    storage.metadata().upsertEndpoints(List.of(
        new EndpointMeta("YQ==.1_R0VUOi8=", "YQ==.1", "GET:/", 202611221000L, 202611221000L),
        new EndpointMeta("YQ==.1_R0VUOi9h", "YQ==.1", "GET:/a", 202611221000L, 202611221000L),
        new EndpointMeta("YQ==.1_UE9TVDov", "YQ==.1", "POST:/", 202611221000L, 202611221000L)));
    awaitWrites();

    assertThat(storage.metadata().services()).extracting(ServiceMeta::name).containsExactly("a", "b");
    ServiceMeta a = storage.metadata().service("YQ==.1").orElseThrow();
    assertThat(a.layers()).containsExactlyInAnyOrder("MESH", "MESH_DP");
    assertThat(a.firstSeen()).isEqualTo(202611221000L);
    assertThat(a.lastSeen()).isEqualTo(202611221005L);
    assertThat(storage.metadata().service("Yw==.1")).isEmpty();

    assertThat(storage.metadata().instances("YQ==.1", 202611221003L, 202611221004L)).extracting(InstanceMeta::name)
        .containsExactly("i1");
    assertThat(storage.metadata().instances("YQ==.1", 202611221000L, 202611221009L)).extracting(InstanceMeta::name)
        .containsExactly("i1", "i2");
    InstanceMeta i1 = storage.metadata().instance("YQ==.1_aTE=").orElseThrow();
    assertThat(i1.attributes()).containsEntry("pod", "i1").containsEntry("node", "n1");
    assertThat(i1.lastSeen()).isEqualTo(202611221003L);

    assertThat(storage.metadata().endpoints("YQ==.1", "GET", 10)).extracting(EndpointMeta::name)
        .containsExactly("GET:/", "GET:/a");
    assertThat(storage.metadata().endpoints("YQ==.1", "", 2)).hasSize(2);
    assertThat(storage.metadata().endpoints("Yg==.1", null, 10)).isEmpty();
    assertThat(storage.metadata().endpoint("YQ==.1_UE9TVDov").orElseThrow().name()).isEqualTo("POST:/");
  }
}
