package io.sextant.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.core.query.HierarchyRules.Link;
import io.sextant.core.query.HierarchyRules.MatchRule;
import io.sextant.core.query.HierarchyView.InstanceRelation;
import io.sextant.core.query.HierarchyView.RelatedInstance;
import io.sextant.core.query.HierarchyView.RelatedService;
import io.sextant.core.query.HierarchyView.ServiceRelation;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The hierarchy rules as SkyWalking 10.1 defines them, answered from what the metadata store holds. */
class HierarchyQueriesTest {
  private static final long MINUTE = 202611221030L;
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(10_000));
  private final HierarchyQueries q = new HierarchyQueries(storage);

  private String service(String name, String... layers) {
    String id = EntityIds.serviceId(name, true);
    storage.metadata().upsertServices(List.of(new ServiceMeta(id, name, true, Set.of(layers), MINUTE, MINUTE)));
    return id;
  }

  private String instance(String serviceId, String name, Map<String, String> attributes) {
    String id = EntityIds.instanceId(serviceId, name);
    storage.metadata().upsertInstances(List.of(new InstanceMeta(id, serviceId, name, "MESH", attributes, MINUTE,
        MINUTE)));
    return id;
  }

  private static RelatedService node(String id, String name, String layer) {
    return new RelatedService(id, name, layer, true);
  }

  @Test
  void everyLinkGoesFromAHigherLevelToALowerOne() {
    for (Link link : HierarchyRules.LINKS) {
      assertThat(HierarchyRules.LEVELS).containsKeys(link.upperLayer(), link.lowerLayer());
      assertThat(HierarchyRules.LEVELS.get(link.upperLayer()))
          .as(link.toString()).isGreaterThan(HierarchyRules.LEVELS.get(link.lowerLayer()));
    }
    assertThat(q.layerLevels()).hasSize(18);
    assertThat(q.layerLevels().get(0)).isEqualTo(new HierarchyView.LayerLevel("MESH", 3));
    assertThat(q.layerLevels().get(17)).isEqualTo(new HierarchyView.LayerLevel("K8S_SERVICE", 0));
  }

  @Test
  void matchingRulesAreSkyWalkings() {
    assertThat(MatchRule.NAME.upperKey("e2e::a")).isEqualTo(MatchRule.NAME.lowerKey("e2e::a"));
    assertThat(MatchRule.SHORT_NAME.upperKey("mesh::a")).isEqualTo(MatchRule.SHORT_NAME.lowerKey("k8s::a"));
    // GENERAL "agent::songs" is above K8S_SERVICE "k8s::songs.default" (namespace removed).
    assertThat(MatchRule.LOWER_SHORT_NAME_REMOVE_NS.lowerKey("k8s::songs.default"))
        .isEqualTo(MatchRule.LOWER_SHORT_NAME_REMOVE_NS.upperKey("agent::songs"));
    assertThat(MatchRule.LOWER_SHORT_NAME_REMOVE_NS.lowerKey("songs")).isNull();
    // VIRTUAL_DATABASE "mysql.ns.svc.cluster.local:3306" is above MYSQL "mysql::mysql.ns".
    assertThat(MatchRule.LOWER_SHORT_NAME_WITH_FQDN.upperKey("mysql.ns.svc.cluster.local:3306"))
        .isEqualTo(MatchRule.LOWER_SHORT_NAME_WITH_FQDN.lowerKey("mysql::mysql.ns"));
    assertThat(MatchRule.LOWER_SHORT_NAME_WITH_FQDN.upperKey("mysql")).isNull();
  }

  @Test
  void aServiceInTwoLinkedLayersIsAboveItself() {
    String pp = service("productpage", "MESH", "MESH_DP");
    service("reviews", "MESH");
    List<ServiceRelation> expected =
        List.of(new ServiceRelation(node(pp, "productpage", "MESH"), node(pp, "productpage", "MESH_DP")));
    assertThat(q.serviceHierarchy(pp, "MESH")).isEqualTo(expected);
    assertThat(q.serviceHierarchy(pp, "MESH_DP")).isEqualTo(expected);
    assertThat(q.serviceHierarchy(EntityIds.serviceId("reviews", true), "MESH")).isEmpty();
    assertThat(q.serviceHierarchy(pp, "GENERAL")).isEmpty();
    assertThat(q.serviceHierarchy(EntityIds.serviceId("nope", true), "MESH")).isEmpty();
  }

  @Test
  void aRelationALongerPathImpliesIsLeftOut() {
    String mesh = service("ns::songs", "MESH", "MESH_DP");
    String k8s = service("k8s::songs", "K8S_SERVICE");
    RelatedService m = node(mesh, "ns::songs", "MESH");
    RelatedService dp = node(mesh, "ns::songs", "MESH_DP");
    RelatedService k = node(k8s, "k8s::songs", "K8S_SERVICE");
    // MESH -> K8S_SERVICE also matches (short-name), but MESH -> MESH_DP -> K8S_SERVICE implies it.
    assertThat(q.serviceHierarchy(mesh, "MESH"))
        .containsExactlyInAnyOrder(new ServiceRelation(m, dp), new ServiceRelation(dp, k));
    assertThat(q.serviceHierarchy(k8s, "K8S_SERVICE"))
        .containsExactlyInAnyOrder(new ServiceRelation(m, dp), new ServiceRelation(dp, k));
  }

  @Test
  void instancesMatchByNameOrHost() {
    String pp = service("productpage", "MESH", "MESH_DP");
    String k8s = service("k8s::productpage", "K8S_SERVICE");
    String pod = instance(pp, "productpage-v1-abc", Map.of("pod", "productpage-v1-abc"));
    instance(k8s, "10.0.0.7", Map.of("pod", "productpage-v1-abc"));
    RelatedInstance self = new RelatedInstance(pod, "productpage-v1-abc", pp, "productpage", "MESH_DP", true);
    // MESH_DP is linked up to MESH (the same instance) and down to K8S_SERVICE (same pod attribute).
    assertThat(q.instanceHierarchy(pod, "MESH_DP")).containsExactlyInAnyOrder(
        new InstanceRelation(
            new RelatedInstance(pod, "productpage-v1-abc", pp, "productpage", "MESH", true), self),
        new InstanceRelation(self, new RelatedInstance(EntityIds.instanceId(k8s, "10.0.0.7"), "10.0.0.7", k8s,
            "k8s::productpage", "K8S_SERVICE", true)));
    assertThat(q.instanceHierarchy(EntityIds.instanceId(pp, "nope"), "MESH")).isEmpty();
  }
}
