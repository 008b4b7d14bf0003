package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.storage.Edge;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The storage SPI's contract, run against every backend: each plugin extends this class and says
 * how to make an empty store. A backend that passes answers every query the way the in-memory store
 * does.
 */
public abstract class StorageComplianceTest {
  protected StorageComponent storage;

  /** A new, empty store, started. Called before each test. */
  protected abstract StorageComponent newStorage() throws Exception;

  /** Makes everything written so far visible to reads (a refresh for search engines). */
  protected void awaitWrites() throws Exception {}

  @BeforeEach
  void open() throws Exception {
    storage = newStorage();
  }

  @AfterEach
  void close() {
    storage.close();
  }

  /** A row of one metric, its group named after it. */
  private static PartialRow partial(String metric, String entity, Step step, long bucket, String writer, long seq,
      long count, byte[] sketch) {
    return new PartialRow(metric, entity, step, bucket, writer, seq,
        List.of(new PartialRow.Cell(metric, new long[] {count, 2 * count, 0}, sketch)));
  }

  @Test
  void aRowIsReadBackMetricByMetric() throws Exception {
    byte[] sketch = {9, 8, 7};
    PartialRow row = new PartialRow("CALL_SERVICE", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 3, List.of(
        new PartialRow.Cell("service_cpm", new long[] {10, 0, 0}, null),
        new PartialRow.Cell("service_percentile", new long[] {10, 0, 0}, sketch),
        new PartialRow.Cell("service_sla", new long[] {10, 9, 0}, null)));
    PartialRow other = new PartialRow("CALL_SERVICE", "Yg==.1", Step.MINUTE, 202611221000L, "c1", 4, List.of(
        new PartialRow.Cell("service_cpm", new long[] {4, 0, 0}, null)));
    storage.metrics().write(List.of(row, other));
    awaitWrites();
    assertThat(storage.metrics().read("service_sla", null, Step.MINUTE, 202611221000L, 202611221000L))
        .singleElement().satisfies(p -> {
          assertThat(p.metric()).isEqualTo("service_sla");
          assertThat(p.entityId()).isEqualTo("YQ==.1");
          assertThat(p.values()).containsExactly(10, 9, 0);
          assertThat(p.sequence()).isEqualTo(3);
        });
    assertThat(storage.metrics().read("service_percentile", List.of("YQ==.1"), Step.MINUTE, 202611221000L, 202611221000L))
        .singleElement().satisfies(p -> assertThat(p.sketch()).containsExactly(sketch));
    assertThat(storage.metrics().read("service_cpm", null, Step.MINUTE, 202611221000L, 202611221000L))
        .extracting(p -> p.entityId() + "=" + p.values()[0]).containsExactlyInAnyOrder("YQ==.1=10", "Yg==.1=4");
  }

  @Test
  void partialsAreReadBackByEntityAndInclusiveRange() throws Exception {
    storage.metrics().write(List.of(
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 5, null),
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221001L, "c1", 2, 6, null),
        partial("service_cpm", "YQ==.1", Step.MINUTE, 202611221002L, "c1", 3, 7, null),
        partial("service_cpm", "Yg==.1", Step.MINUTE, 202611221001L, "c1", 4, 8, null),
        partial("service_cpm", "YQ==.1", Step.HOUR, 2026112210L, "c1", 5, 18, null),
        partial("service_sla", "YQ==.1", Step.MINUTE, 202611221001L, "c1", 6, 9, null)));
    awaitWrites();
    List<MetricPartial> read = storage.metrics().read("service_cpm", List.of("YQ==.1"), Step.MINUTE, 202611221001L, 202611221002L);
    assertThat(read).extracting(MetricPartial::bucket).containsExactlyInAnyOrder(202611221001L, 202611221002L);
    MetricPartial p = read.stream().filter(x -> x.bucket() == 202611221001L).findFirst().orElseThrow();
    assertThat(p.values()).containsExactly(6, 12, 0);
    assertThat(p.writerId()).isEqualTo("c1");
    assertThat(p.sequence()).isEqualTo(2);
    assertThat(p.step()).isEqualTo(Step.MINUTE);
    assertThat(p.entityId()).isEqualTo("YQ==.1");
    assertThat(p.sketch()).isNull();
    assertThat(storage.metrics().read("service_cpm", null, Step.MINUTE, 202611221000L, 202611221002L)).hasSize(4);
    assertThat(storage.metrics().read("service_cpm", List.of("YQ==.1", "Yg==.1"), Step.MINUTE, 202611221001L, 202611221001L))
        .hasSize(2);
    assertThat(storage.metrics().read("service_cpm", null, Step.HOUR, 2026112210L, 2026112210L))
        .extracting(x -> x.values()[0]).containsExactly(18L);
    assertThat(storage.metrics().read("service_cpm", List.of("Yw==.1"), Step.MINUTE, 0, Long.MAX_VALUE)).isEmpty();
    assertThat(storage.metrics().read("nothing", null, Step.MINUTE, 0, Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void aRewrittenPartialReplacesItselfAndOtherWritersAddUp() throws Exception {
    byte[] sketch = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    storage.metrics().write(List.of(partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 5, sketch)));
    storage.metrics().write(List.of(
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 1, 7, sketch),
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c1", 2, 1, null),
        partial("service_percentile", "YQ==.1", Step.MINUTE, 202611221000L, "c2", 1, 3, null)));
    awaitWrites();
    List<MetricPartial> read = storage.metrics().read("service_percentile", List.of("YQ==.1"), Step.MINUTE,
        202611221000L, 202611221000L);
    assertThat(read).extracting(x -> x.writerId() + "/" + x.sequence() + "=" + x.values()[0])
        .containsExactlyInAnyOrder("c1/1=7", "c1/2=1", "c2/1=3");
    assertThat(read.stream().filter(x -> x.sequence() == 1 && x.writerId().equals("c1")).findFirst().orElseThrow().sketch())
        .containsExactly(sketch);
  }

  @Test
  void edgesAreDistinctWithinTheirMinutes() throws Exception {
    Edge client = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.CLIENT, "http");
    Edge server = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.SERVER, "http");
    Edge instances = new Edge(Scope.SERVICE_INSTANCE, "YQ==.1_aQ==", "Yg==.1_aQ==", DetectPoint.CLIENT, "http");
    storage.topology().write(List.of(client, server, instances), 202611221000L);
    storage.topology().write(List.of(client), 202611221005L);
    storage.topology().write(List.of(client), 202611221005L);
    awaitWrites();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221000L, 202611221010L)).containsExactlyInAnyOrder(client, server);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221001L, 202611221004L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221005L, 202611221005L)).containsExactly(client);
    assertThat(storage.topology().read(Scope.SERVICE_INSTANCE, 202611221000L, 202611221000L)).containsExactly(instances);
  }

  @Test
  void edgeWindowsCrossHoursAndTakeLateMinutes() throws Exception {
    Edge edge = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.SERVER, "http");
    Edge other = new Edge(Scope.SERVICE, "Yg==.1", "Yw==.1", DetectPoint.CLIENT, "tcp");
    storage.topology().write(List.of(edge), 202611221059L);
    storage.topology().write(List.of(edge, other), 202611221100L);
    storage.topology().write(List.of(edge), 202611221130L);
    storage.topology().write(List.of(other), 202611221045L); // late: an hour already written
    storage.topology().write(List.of(edge), 202611222359L);
    storage.topology().write(List.of(edge), 202611230000L); // the next day
    awaitWrites();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221059L, 202611221059L)).containsExactly(edge);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221100L, 202611221100L)).containsExactlyInAnyOrder(edge, other);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221101L, 202611221129L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221040L, 202611221058L)).containsExactly(other);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221131L, 202611222358L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611230000L, 202611230010L)).containsExactly(edge);
    assertThat(storage.topology().read(Scope.SERVICE, 202611220000L, 202611232359L)).containsExactlyInAnyOrder(edge, other);
  }

  @Test
  void metadataUpsertsMergeSeenTimesLayersAndAttributes() throws Exception {
    storage.metadata().upsertServices(List.of(new ServiceMeta("YQ==.1", "a", true, Set.of("MESH"), 202611221005L, 202611221005L)));
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

    assertThat(storage.metadata().endpoints("YQ==.1", "GET", 10)).extracting(EndpointMeta::name).containsExactly("GET:/", "GET:/a");
    assertThat(storage.metadata().endpoints("YQ==.1", "", 2)).hasSize(2);
    assertThat(storage.metadata().endpoints("Yg==.1", null, 10)).isEmpty();
    assertThat(storage.metadata().endpoint("YQ==.1_UE9TVDov").orElseThrow().name()).isEqualTo("POST:/");
  }
}
