package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link io.sextant.api.storage.TopologyStore} contract: edges are distinct within the minutes
 * they were seen in, across hours and days, late minutes included.
 */
public abstract class TopologyStoreCompliance extends StorageCompliance {
  @Test
  void edgesAreDistinctWithinTheirMinutes() throws Exception {
    Edge client = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.CLIENT, "http");
    Edge server = new Edge(Scope.SERVICE, "YQ==.1", "Yg==.1", DetectPoint.SERVER, "http");
    Edge instances = new Edge(Scope.SERVICE_INSTANCE, "YQ==.1_aQ==", "Yg==.1_aQ==", DetectPoint.CLIENT, "http");
    storage.topology().write(List.of(client, server, instances), 202611221000L);
    storage.topology().write(List.of(client), 202611221005L);
    storage.topology().write(List.of(client), 202611221005L);
    awaitWrites();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221000L, 202611221010L))
        .containsExactlyInAnyOrder(client, server);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221001L, 202611221004L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221005L, 202611221005L)).containsExactly(client);
    assertThat(storage.topology().read(Scope.SERVICE_INSTANCE, 202611221000L, 202611221000L))
        .containsExactly(instances);
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
    assertThat(storage.topology().read(Scope.SERVICE, 202611221100L, 202611221100L))
        .containsExactlyInAnyOrder(edge, other);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221101L, 202611221129L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611221040L, 202611221058L)).containsExactly(other);
    assertThat(storage.topology().read(Scope.SERVICE, 202611221131L, 202611222358L)).isEmpty();
    assertThat(storage.topology().read(Scope.SERVICE, 202611230000L, 202611230010L)).containsExactly(edge);
    assertThat(storage.topology().read(Scope.SERVICE, 202611220000L, 202611232359L))
        .containsExactlyInAnyOrder(edge, other);
  }
}
