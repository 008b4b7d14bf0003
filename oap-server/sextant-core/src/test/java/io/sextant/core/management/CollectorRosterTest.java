package io.sextant.core.management;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.core.management.CollectorRoster.Member;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import io.sextant.testkit.time.MovingClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CollectorRosterTest {
  private final MovingClock clock = new MovingClock(Instant.parse("2026-11-27T10:00:00Z").toEpochMilli());
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(1_000), clock);

  private CollectorRoster collector(String id, int port) {
    return new CollectorRoster(storage::management, id, "10.0.0." + port, 11800, 12800, clock, Duration.ofSeconds(10));
  }

  @Test
  void everyCollectorListsEveryLiveOneItselfFirst() {
    CollectorRoster a = collector("a", 1);
    CollectorRoster b = collector("b", 2);
    a.beat();
    b.beat();
    assertThat(a.live()).extracting(Member::collectorId).containsExactly("a", "b");
    assertThat(b.live()).extracting(Member::collectorId).containsExactly("b", "a");
    assertThat(b.live().get(1)).satisfies(m -> {
      assertThat(m.host()).isEqualTo("10.0.0.1");
      assertThat(m.grpcPort()).isEqualTo(11800);
      assertThat(m.httpPort()).isEqualTo(12800);
    });
  }

  @Test
  void aCollectorThatStopsBeatingLeavesTheListAndIsForgottenLater() {
    CollectorRoster a = collector("a", 1);
    CollectorRoster b = collector("b", 2);
    a.beat();
    b.beat();
    clock.advance(Duration.ofSeconds(31));
    a.beat();
    assertThat(a.live()).extracting(Member::collectorId).containsExactly("a");
    assertThat(storage.management().list(CollectorRoster.KIND)).hasSize(2);
    clock.advance(Duration.ofMinutes(10));
    a.beat();
    assertThat(storage.management().list(CollectorRoster.KIND)).hasSize(1);
  }

  @Test
  void aCleanStopLeavesEvenWhenABeatItInterruptedWasWritten() {
    CollectorRoster a = collector("a", 1);
    CollectorRoster b = collector("b", 2);
    a.beat();
    b.beat();
    // The stop interrupted b's next beat after storage took it: b never learnt the new version.
    var doc = storage.management().get(CollectorRoster.KIND, "b").orElseThrow();
    storage.management().put(CollectorRoster.KIND, "b", doc.body(), doc.version());
    b.leave();
    assertThat(a.live()).extracting(Member::collectorId).containsExactly("a");
  }

  @Test
  void aCleanStopLeavesAtOnceAndARestartUnderTheSameIdTakesItsPlace() {
    CollectorRoster a = collector("a", 1);
    CollectorRoster b = collector("b", 2);
    a.beat();
    b.beat();
    b.leave();
    assertThat(a.live()).extracting(Member::collectorId).containsExactly("a");
    CollectorRoster restartedA = collector("a", 3);
    restartedA.beat();
    restartedA.beat();
    assertThat(b.live()).singleElement().satisfies(m -> assertThat(m.host()).isEqualTo("10.0.0.3"));
  }
}
