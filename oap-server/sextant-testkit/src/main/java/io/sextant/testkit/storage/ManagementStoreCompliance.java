package io.sextant.testkit.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.VersionConflictException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The {@link ManagementStore} contract: documents are created at version 1, each update names the
 * version it replaces and a stale or missing one is refused, so two collectors changing one document
 * never lose an update.
 */
public abstract class ManagementStoreCompliance extends StorageCompliance {
  private static final int INCREMENTS_PER_COLLECTOR = 50;

  /**
   * A second collector's store over the same data, started; the test closes it unless it is {@link
   * #storage}. The default shares the store (two threads on one in-process store).
   */
  protected StorageComponent secondCollector() throws Exception {
    return storage;
  }

  private static String text(ManagedDocument d) {
    return d.kind() + "/" + d.id() + " v" + d.version() + " " + d.body();
  }

  @Test
  void aCreatedDocumentIsReadBackAtVersionOne() throws Exception {
    long before = System.currentTimeMillis();
    ManagedDocument created = storage.management().put("template", "mesh", "{\"name\":\"Mesh\"}", 0);
    awaitWrites();

    assertThat(text(created)).isEqualTo("template/mesh v1 {\"name\":\"Mesh\"}");
    assertThat(created.updatedMillis()).isBetween(before - 60_000, System.currentTimeMillis() + 60_000);
    ManagedDocument read = storage.management().get("template", "mesh").orElseThrow();
    assertThat(text(read)).isEqualTo("template/mesh v1 {\"name\":\"Mesh\"}");
    assertThat(read.updatedMillis()).isEqualTo(created.updatedMillis());
    assertThat(storage.management().get("template", "other")).isEmpty();
    assertThat(storage.management().get("menu", "mesh")).isEmpty();
  }

  @Test
  void aSecondCreateConflictsAndChangesNothing() throws Exception {
    storage.management().put("template", "mesh", "first", 0);
    assertThatThrownBy(() -> storage.management().put("template", "mesh", "second", 0))
        .isInstanceOf(VersionConflictException.class).hasMessageContaining("template 'mesh'");
    awaitWrites();
    assertThat(text(storage.management().get("template", "mesh").orElseThrow())).isEqualTo("template/mesh v1 first");
  }

  @Test
  void anUpdateNeedsTheCurrentVersion() throws Exception {
    ManagementStore m = storage.management();
    m.put("policy", "p1", "a", 0);
    assertThat(text(m.put("policy", "p1", "b", 1))).isEqualTo("policy/p1 v2 b");
    assertThatThrownBy(() -> m.put("policy", "p1", "stale", 1)).isInstanceOf(VersionConflictException.class);
    assertThatThrownBy(() -> m.put("policy", "p1", "future", 5)).isInstanceOf(VersionConflictException.class);
    assertThatThrownBy(() -> m.put("policy", "missing", "x", 1)).isInstanceOf(VersionConflictException.class);
    assertThat(text(m.put("policy", "p1", "c", 2))).isEqualTo("policy/p1 v3 c");
    awaitWrites();

    assertThat(text(m.get("policy", "p1").orElseThrow())).isEqualTo("policy/p1 v3 c");
    assertThat(m.get("policy", "missing")).isEmpty();
    assertThat(m.list("policy")).extracting(ManagementStoreCompliance::text).containsExactly("policy/p1 v3 c");
  }

  @Test
  void aDeletedDocumentIsGoneAndCanBeCreatedAgain() throws Exception {
    ManagementStore m = storage.management();
    m.put("task", "t1", "a", 0);
    m.put("task", "t1", "b", 1);
    m.put("task", "t2", "other", 0);

    assertThat(m.delete("task", "t1")).isTrue();
    assertThat(m.delete("task", "t1")).isFalse();
    assertThat(m.delete("task", "never")).isFalse();
    awaitWrites();
    assertThat(m.get("task", "t1")).isEmpty();
    assertThat(m.list("task")).extracting(ManagementStoreCompliance::text).containsExactly("task/t2 v1 other");
    assertThat(text(m.put("task", "t1", "again", 0))).isEqualTo("task/t1 v1 again");
  }

  @Test
  void aVersionedDeleteRemovesOnlyTheVersionItSaw() throws Exception {
    ManagementStore m = storage.management();
    m.put("state", "s1", "a", 0);
    m.put("state", "s1", "b", 1);

    assertThatThrownBy(() -> m.delete("state", "s1", 1)).as("a stale delete would undo a write it never saw")
        .isInstanceOf(VersionConflictException.class);
    assertThat(text(m.get("state", "s1").orElseThrow())).isEqualTo("state/s1 v2 b");
    assertThat(m.delete("state", "s1", 2)).isTrue();
    assertThat(m.delete("state", "s1", 2)).isFalse();
    assertThat(m.delete("state", "never", 1)).isFalse();
    awaitWrites();
    assertThat(m.get("state", "s1")).isEmpty();
    assertThat(text(m.put("state", "s1", "again", 0))).isEqualTo("state/s1 v1 again");
  }

  @Test
  void documentsAreListedByKindInIdOrder() throws Exception {
    ManagementStore m = storage.management();
    m.put("template", "b", "2", 0);
    m.put("menu", "root", "m", 0);
    m.put("template", "c", "3", 0);
    m.put("template", "a", "1", 0);
    m.put("template", "a", "1+", 1);
    awaitWrites();

    assertThat(m.list("template")).extracting(ManagementStoreCompliance::text)
        .containsExactly("template/a v2 1+", "template/b v1 2", "template/c v1 3");
    assertThat(m.list("menu")).extracting(ManagementStoreCompliance::text).containsExactly("menu/root v1 m");
    assertThat(m.list("nothing")).isEmpty();
  }

  @Test
  void twoCollectorsIncrementingOneCounterNeverLoseAnUpdate() throws Exception {
    StorageComponent second = secondCollector();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      storage.management().put("counter", "hits", "0", 0);
      CountDownLatch go = new CountDownLatch(1);
      AtomicInteger conflicts = new AtomicInteger();
      List<Future<?>> done = new ArrayList<>();
      for (ManagementStore collector : List.of(storage.management(), second.management())) {
        done.add(threads.submit(() -> {
          go.await();
          for (int i = 0; i < INCREMENTS_PER_COLLECTOR; i++) {
            while (true) {
              ManagedDocument d = collector.get("counter", "hits").orElseThrow();
              try {
                collector.put("counter", "hits", Long.toString(Long.parseLong(d.body()) + 1), d.version());
                break;
              } catch (VersionConflictException e) {
                conflicts.incrementAndGet(); // the other collector wrote first: read again
              }
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES);
      }
      ManagedDocument last = storage.management().get("counter", "hits").orElseThrow();
      assertThat(last.body()).isEqualTo(Integer.toString(2 * INCREMENTS_PER_COLLECTOR));
      assertThat(last.version()).isEqualTo(2 * INCREMENTS_PER_COLLECTOR + 1);
      assertThat(second.management().get("counter", "hits").orElseThrow().version()).isEqualTo(last.version());
    } finally {
      threads.shutdownNow();
      if (second != storage) {
        second.close();
      }
    }
  }
}
