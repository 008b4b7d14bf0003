package io.sextant.query.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import graphql.ExecutionInput;
import graphql.GraphQL;
import graphql.execution.AsyncExecutionStrategy;
import io.sextant.api.component.CheckResult;
import io.sextant.api.id.EntityIds;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.alarm.AlarmQueries;
import io.sextant.core.metric.MetricFamilies;
import io.sextant.core.query.QueryServices;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The UI's topology queries over SkyWalking's schema: the edges that went in come out as nodes and
 * calls, and Sextant's strategy answers exactly what graphql-java's general path answers.
 */
class TopologyAnswerTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:30:00Z"), ZoneOffset.UTC);
  private static final String DURATION = "{start: \"2026-11-22 1000\", end: \"2026-11-22 1030\", step: MINUTE}";
  private final String gateway = EntityIds.serviceId("gateway", true);
  private final String reviews = EntityIds.serviceId("reviews", true);
  private final String ratings = EntityIds.serviceId("ratings", true);
  private final String db = EntityIds.serviceId("mysql:3306", false);
  private final FlatListExecutionStrategy flat = new FlatListExecutionStrategy();
  private final GraphQL fast;
  private final GraphQL general;
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(100_000));
  private final long minute = new TimeBuckets(ZoneOffset.UTC, CLOCK).minuteBucket(CLOCK.millis());

  TopologyAnswerTest() {
    // ratings has no metadata: its node is named from its id, with no layers.
    storage.metadata().upsertServices(List.of(
        new ServiceMeta(gateway, "gateway", true, Set.of("MESH"), minute, minute),
        new ServiceMeta(reviews, "reviews", true, Set.of("MESH", "K8S_SERVICE"), minute, minute),
        new ServiceMeta(db, "mysql:3306", false, Set.of("MESH"), minute, minute)));
    storage.topology().write(List.of(
        new Edge(Scope.SERVICE, gateway, reviews, DetectPoint.CLIENT, "http"),
        new Edge(Scope.SERVICE, gateway, reviews, DetectPoint.SERVER, "http"),
        new Edge(Scope.SERVICE, reviews, ratings, DetectPoint.SERVER, "gRPC"),
        new Edge(Scope.SERVICE, ratings, db, DetectPoint.CLIENT, "tcp")), minute);
    QueryServices query = QueryServices.over(storage, MetricFamilies.catalog(100));
    QueryLimits limits = new QueryLimits(15, 5000, 10_000);
    List<SchemaArea> areas = SextantGraphql.standardAreas(query, new AlarmQueries(() -> storage), limits, "test",
        () -> CheckResult.OK, ZoneOffset.UTC, CLOCK, Runnable::run);
    fast = SextantGraphql.build(areas, limits, flat);
    general = SextantGraphql.build(areas, limits, new AsyncExecutionStrategy());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> answer(String query) {
    long before = flat.shortcuts.sum();
    ExecutionInput input = ExecutionInput.newExecutionInput(query).build();
    Map<String, Object> expected = general.execute(input).toSpecification();
    Map<String, Object> actual = fast.execute(ExecutionInput.newExecutionInput(query).build()).toSpecification();
    assertThat(actual).isEqualTo(expected);
    assertThat(actual).doesNotContainKey("errors");
    assertThat(flat.shortcuts.sum()).isGreaterThan(before);
    return (Map<String, Object>) actual.get("data");
  }

  @Test
  @SuppressWarnings("unchecked")
  void servicesTopologyAsTheUiAsksForIt() {
    Map<String, Object> data = answer("{ topology: getServicesTopology(serviceIds: [\"" + reviews + "\"], duration: "
        + DURATION + ") { nodes { id name type isReal layers } calls { id source sourceComponents target"
        + " targetComponents detectPoints } } }");
    Map<String, Object> topology = (Map<String, Object>) data.get("topology");
    List<Map<String, Object>> nodes = (List<Map<String, Object>>) topology.get("nodes");
    assertThat(nodes).hasSize(3);
    assertThat(nodes.get(0)).isEqualTo(node(gateway, "gateway", null, true, List.of("MESH"))); // only calls out
    assertThat(nodes.get(1)).isEqualTo(node(ratings, "ratings", "gRPC", true, List.of()));     // no metadata
    assertThat(nodes.get(2)).containsEntry("id", reviews).containsEntry("type", "http");
    assertThat((List<String>) nodes.get(2).get("layers")).containsExactlyInAnyOrder("MESH", "K8S_SERVICE");
    assertThat((List<Map<String, Object>>) topology.get("calls"))
        .extracting(c -> c.get("id"), c -> c.get("detectPoints"))
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(EntityIds.relationId(gateway, reviews), List.of("CLIENT", "SERVER")),
            org.assertj.core.groups.Tuple.tuple(EntityIds.relationId(reviews, ratings), List.of("SERVER")));
  }

  private static Map<String, Object> node(String id, String name, String type, boolean real, List<String> layers) {
    Map<String, Object> n = new java.util.LinkedHashMap<>();
    n.put("id", id);
    n.put("name", name);
    n.put("type", type);
    n.put("isReal", real);
    n.put("layers", layers);
    return n;
  }

  @Test
  @SuppressWarnings("unchecked")
  void globalTopologyHasTheConjecturalDatabase() {
    Map<String, Object> data = answer("{ getGlobalTopology(duration: " + DURATION + ") { nodes { id isReal type }"
        + " calls { source target } } }");
    List<Map<String, Object>> nodes = (List<Map<String, Object>>) ((Map<String, Object>) data.get("getGlobalTopology"))
        .get("nodes");
    assertThat(nodes).extracting(n -> n.get("id")).containsExactlyInAnyOrder(gateway, reviews, ratings, db);
    assertThat(nodes).filteredOn(n -> n.get("id").equals(db)).singleElement()
        .satisfies(n -> assertThat(n).containsEntry("isReal", false).containsEntry("type", "tcp"));
  }

  @SuppressWarnings("unchecked")
  private List<Object> global(String layer, String field) {
    String args = layer == null ? "" : ", layer: \"" + layer + "\"";
    Map<String, Object> topology = (Map<String, Object>) answer("{ getGlobalTopology(duration: " + DURATION + args
        + ") { nodes { id name } calls { source target } } }").get("getGlobalTopology");
    return ((List<Map<String, Object>>) topology.get("nodes")).stream().map(n -> n.get(field)).toList();
  }

  /** A dashboard reads it again and again: each read answers what is stored then, per layer. */
  @Test
  void globalTopologyReadAgainFollowsNewEdgesServicesAndLayers() {
    assertThat(global(null, "id")).containsExactlyInAnyOrder(gateway, reviews, ratings, db);
    assertThat(global("K8S_SERVICE", "id")).as("services calling or called by reviews")
        .containsExactlyInAnyOrder(gateway, reviews, ratings);
    assertThat(global(null, "id")).containsExactlyInAnyOrder(gateway, reviews, ratings, db);

    String details = EntityIds.serviceId("details", true);
    storage.topology().write(List.of(new Edge(Scope.SERVICE, gateway, details, DetectPoint.SERVER, "http")), minute);
    assertThat(global(null, "id")).containsExactlyInAnyOrder(gateway, reviews, ratings, db, details);
    assertThat(global("K8S_SERVICE", "id")).containsExactlyInAnyOrder(gateway, reviews, ratings);

    storage.metadata().upsertServices(List.of(new ServiceMeta(details, "details", true, Set.of("K8S_SERVICE"),
        minute, minute)));
    assertThat(global("K8S_SERVICE", "id")).containsExactlyInAnyOrder(gateway, reviews, ratings, details);
  }
}
