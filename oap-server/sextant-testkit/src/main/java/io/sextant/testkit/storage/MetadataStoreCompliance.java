package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.ebpf.ProcessIds;
import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.MetadataStore} contract: upserts merge seen times, layers and
 * attributes; reads filter by service, time window and keyword. Processes merge as {@link
 * ProcessMeta#merge} says and are read by service, instance, agent, liveness and limit.
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

  private static final String SVC = EntityIds.serviceId("reviews.default", true);
  private static final String POD1 = EntityIds.instanceId(SVC, "reviews-v1-abc");
  private static final String POD2 = EntityIds.instanceId(SVC, "reviews-v2-def");
  private static final String VM_SVC = EntityIds.serviceId("billing", true);
  private static final String VM = EntityIds.instanceId(VM_SVC, "vm-1");
  private static final long ANY_END = Long.MAX_VALUE;

  private static ProcessMeta process(String instanceId, String name, String agent, String detectType,
      List<String> labels, Map<String, String> properties, long first, long last) {
    String serviceId = EntityIds.parseChildId(instanceId).serviceId();
    return new ProcessMeta(ProcessIds.processId(instanceId, name), serviceId, instanceId, name, "MESH", agent,
        detectType, labels, properties, "true".equals(properties.get("support_ebpf_profiling")), first, last);
  }

  @Test
  void processMergeTheNewestReportDescribesAndEmptyValuesNeverReplaceKnownOnes() throws Exception {
    String id = ProcessIds.processId(POD1, "envoy");
    Map<String, String> props = Map.of("support_ebpf_profiling", "true", "command_line", "/usr/bin/envoy");
    storage.metadata().upsertProcesses(List.of(
        process(POD1, "envoy", "rover-1", "KUBERNETES", List.of("mesh-envoy"), props, 202611221000L, 202611221000L)));
    // A ping: no detect type, no labels, no properties.
    storage.metadata().upsertProcesses(List.of(
        process(POD1, "envoy", "rover-1", "", List.of(), Map.of(), 202611221005L, 202611221005L)));
    // A late, older report from another agent: it widens first seen and describes nothing.
    storage.metadata().upsertProcesses(List.of(process(POD1, "envoy", "rover-0", "VM", List.of("old"),
        Map.of("support_ebpf_profiling", "false"), 202611220990L, 202611221001L)));
    awaitWrites();

    ProcessMeta p = storage.metadata().process(id).orElseThrow();
    assertThat(p).isEqualTo(new ProcessMeta(id, SVC, POD1, "envoy", "MESH", "rover-1", "KUBERNETES",
        List.of("mesh-envoy"), props, true, 202611220990L, 202611221005L));

    // Newer properties replace the old ones, and profiling support goes with them.
    storage.metadata().upsertProcesses(List.of(process(POD1, "envoy", "rover-2", "", List.of("mesh-envoy", "v2"),
        Map.of("support_ebpf_profiling", "false"), 202611221007L, 202611221007L)));
    awaitWrites();
    assertThat(storage.metadata().process(id).orElseThrow()).isEqualTo(new ProcessMeta(id, SVC, POD1, "envoy",
        "MESH", "rover-2", "KUBERNETES", List.of("mesh-envoy", "v2"), Map.of("support_ebpf_profiling", "false"),
        false, 202611220990L, 202611221007L));
    assertThat(storage.metadata().process(ProcessIds.processId(POD1, "nobody"))).isEmpty();
  }

  @Test
  void processesAreReadByServiceInstanceAgentLivenessAndLimit() throws Exception {
    storage.metadata().upsertProcesses(List.of(
        process(POD1, "envoy", "rover-1", "KUBERNETES", List.of(), Map.of(), 202611221000L, 202611221010L),
        process(POD1, "app", "rover-1", "KUBERNETES", List.of(), Map.of(), 202611221000L, 202611221004L),
        process(POD2, "envoy", "rover-2", "KUBERNETES", List.of(), Map.of(), 202611221006L, 202611221010L),
        process(VM, "java", "rover-3", "VM", List.of(), Map.of(), 202611221000L, 202611221010L)));
    awaitWrites();

    assertThat(names(new ProcessQuery(SVC, null, null, 0, ANY_END, 100)))
        .containsExactlyInAnyOrder("reviews-v1-abc/envoy", "reviews-v1-abc/app", "reviews-v2-def/envoy");
    assertThat(names(new ProcessQuery(null, POD1, null, 0, ANY_END, 100)))
        .containsExactlyInAnyOrder("reviews-v1-abc/envoy", "reviews-v1-abc/app");
    assertThat(names(new ProcessQuery(null, null, "rover-3", 0, ANY_END, 100))).containsExactly("vm-1/java");
    assertThat(names(new ProcessQuery(SVC, null, "rover-3", 0, ANY_END, 100))).isEmpty();
    assertThat(names(new ProcessQuery(null, null, "rover-9", 0, ANY_END, 100))).isEmpty();
    assertThat(names(new ProcessQuery(null, null, null, 0, ANY_END, 100))).hasSize(4);

    // Alive at some minute of the range: last ping at or after its start, first seen at or before its end.
    assertThat(names(new ProcessQuery(SVC, null, null, 202611221005L, 202611221009L, 100)))
        .containsExactlyInAnyOrder("reviews-v1-abc/envoy", "reviews-v2-def/envoy");
    assertThat(names(new ProcessQuery(SVC, null, null, 202611221000L, 202611221004L, 100)))
        .containsExactlyInAnyOrder("reviews-v1-abc/envoy", "reviews-v1-abc/app");
    assertThat(names(new ProcessQuery(SVC, null, null, 202611221004L, 202611221006L, 100))).hasSize(3);
    assertThat(names(new ProcessQuery(SVC, null, null, 202611221011L, ANY_END, 100))).isEmpty();
    assertThat(names(new ProcessQuery(SVC, null, null, 0, 202611220959L, 100))).isEmpty();

    assertThat(storage.metadata().processes(new ProcessQuery(SVC, null, null, 0, ANY_END, 2))).hasSize(2);
  }

  private List<String> names(ProcessQuery q) {
    return storage.metadata().processes(q).stream()
        .map(p -> EntityIds.parseChildId(p.instanceId()).name() + "/" + p.name()).toList();
  }
}
