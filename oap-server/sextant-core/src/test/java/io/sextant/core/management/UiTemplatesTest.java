package io.sextant.core.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.sextant.api.storage.ManagedDocument;
import io.sextant.storage.memory.MemoryStorage;
import io.sextant.storage.memory.MemoryStorageConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** UiTemplates over a real memory store; two instances over one store are two collectors. */
class UiTemplatesTest {
  private static final String DASHBOARD =
      "{\"name\":\"My-Service\",\"layer\":\"MESH\",\"entity\":\"Service\",\"isRoot\":false,\"children\":[]}";
  private final MemoryStorage storage = new MemoryStorage(new MemoryStorageConfig(10_000));
  private final ExecutorService threads = Executors.newFixedThreadPool(2);

  @AfterEach
  void close() {
    threads.shutdownNow();
    storage.close();
  }

  private static List<ShippedTemplate> release(int n) {
    return ShippedTemplates.fromClasspath(UiTemplatesTest.class.getClassLoader(), "ui-templates-v" + n);
  }

  private UiTemplates collector(int release) {
    return new UiTemplates(storage::management, () -> release(release));
  }

  private static String dashboard(String name) {
    return DASHBOARD.replace("My-Service", name);
  }

  private ManagedDocument stored(String id) {
    return storage.management().get(UiTemplates.KIND, id).orElseThrow();
  }

  @Test
  void anAddedTemplateIsReadBackExactly() {
    UiTemplates templates = collector(1);
    TemplateChange added = templates.add(DASHBOARD);

    assertThat(added.status()).isTrue();
    assertThat(added.message()).isNull();
    assertThat(added.id()).matches("[0-9a-f-]{36}");
    assertThat(templates.get(added.id())).contains(new DashboardTemplate(added.id(), DASHBOARD, false));
    assertThat(templates.all()).containsExactly(new DashboardTemplate(added.id(), DASHBOARD, false));
    assertThat(templates.add(DASHBOARD).id()).isNotEqualTo(added.id());
  }

  @Test
  void changeReplacesTheConfigurationAndDisableHidesTheTemplate() {
    UiTemplates templates = collector(1);
    String id = templates.add(DASHBOARD).id();

    assertThat(templates.change(id, dashboard("Renamed"))).isEqualTo(new TemplateChange(id, true, null));
    assertThat(templates.get(id).orElseThrow().configuration()).isEqualTo(dashboard("Renamed"));
    assertThat(templates.disable(id)).isEqualTo(new TemplateChange(id, true, null));
    assertThat(templates.get(id)).isEmpty();
    assertThat(templates.all()).isEmpty();
    assertThat(stored(id).body()).contains("\"disabled\":true");
    // As in SkyWalking: disabling twice is fine, and a change enables a disabled template again.
    assertThat(templates.disable(id).status()).isTrue();
    assertThat(templates.change(id, dashboard("Back")).status()).isTrue();
    assertThat(templates.all()).extracting(DashboardTemplate::configuration).containsExactly(dashboard("Back"));
  }

  @Test
  void badInputIsRefusedWithSkyWalkingsMessagesAndChangesNothing() {
    UiTemplates templates = collector(1);
    String id = templates.add(DASHBOARD).id();

    assertThat(templates.change("nope", DASHBOARD))
        .isEqualTo(new TemplateChange("nope", false, "Can't find the template"));
    assertThat(templates.disable("nope")).isEqualTo(new TemplateChange("nope", false, "Can't find the template"));
    assertThat(templates.disable("")).isEqualTo(new TemplateChange("", false, "Can't find the template"));
    assertThat(templates.get("nope")).isEmpty();
    assertThat(templates.change(id, "{\"name\": ")).satisfies(c -> {
      assertThat(c.status()).isFalse();
      assertThat(c.id()).isEqualTo(id);
      assertThat(c.message()).startsWith("The configuration is not valid JSON: ");
    });
    assertThat(templates.change(id, "[1, 2]").message())
        .isEqualTo("The configuration must be a JSON object (a dashboard)");
    assertThat(templates.change(id, "{\"layer\":\"MESH\",\"entity\":\"Service\"}").message())
        .isEqualTo("The configuration needs a non-empty string 'name': the UI files a dashboard under its layer,"
            + " entity and name");
    assertThat(templates.add("")).isEqualTo(new TemplateChange("", false,
        "The configuration is empty: it must be a dashboard JSON object"));
    assertThat(templates.add("x".repeat(TemplateConfiguration.MAX_CHARS + 1)).message()).contains("more than the");
    assertThat(templates.all()).extracting(DashboardTemplate::configuration).containsExactly(DASHBOARD);
    assertThat(stored(id).version()).isEqualTo(1);
  }

  @Test
  void shippedTemplatesAreCreatedOnceAndLoadingAgainChangesNothing() {
    UiTemplates.ShippedLoad first = collector(1).loadShipped();
    UiTemplates.ShippedLoad again = collector(1).loadShipped();

    assertThat(first.created()).containsExactly("test-mesh-service", "test-mesh-dp-instance");
    assertThat(again.current()).containsExactly("test-mesh-service", "test-mesh-dp-instance");
    assertThat(again.created()).isEmpty();
    assertThat(collector(1).all()).extracting(DashboardTemplate::id, DashboardTemplate::configuration)
        .containsExactly(
            tuple("test-mesh-dp-instance", release(1).get(1).configuration()),
            tuple("test-mesh-service", release(1).get(0).configuration()));
    assertThat(stored("test-mesh-service").version()).isEqualTo(1);
  }

  @Test
  void aNewShippedReleaseReplacesOnlyTemplatesNobodyChanged() {
    collector(1).loadShipped();
    // A user edits the DP dashboard (its shipped content does not change) and disables nothing yet.
    UiTemplates restarted = collector(1);
    String edited = dashboard("Test-Mesh-DP-Instance").replace("\"Service\"", "\"ServiceInstance\"")
        .replace("\"MESH\"", "\"MESH_DP\"");
    assertThat(restarted.change("test-mesh-dp-instance", edited).status()).isTrue();

    UiTemplates.ShippedLoad upgrade = collector(2).loadShipped();

    assertThat(upgrade.upgraded()).containsExactly("test-mesh-service");
    assertThat(upgrade.keptUserChanges()).containsExactly("test-mesh-dp-instance");
    assertThat(collector(2).get("test-mesh-service").orElseThrow().configuration())
        .isEqualTo(release(2).get(0).configuration()).contains("service_sla");
    assertThat(collector(2).get("test-mesh-dp-instance").orElseThrow().configuration()).isEqualTo(edited);
    assertThat(stored("test-mesh-service").version()).isEqualTo(2);
  }

  @Test
  void aUserEditOrDisableSurvivesRestartsAndUpgrades() {
    collector(1).loadShipped();
    String edited = release(1).get(0).configuration().replace("avg(service_cpm)", "avg(service_resp_time)");
    assertThat(collector(1).change("test-mesh-service", edited).status()).isTrue();
    assertThat(collector(1).disable("test-mesh-dp-instance").status()).isTrue();

    assertThat(collector(1).loadShipped().keptUserChanges())
        .containsExactly("test-mesh-service", "test-mesh-dp-instance");
    assertThat(collector(2).loadShipped().keptUserChanges())
        .containsExactly("test-mesh-service", "test-mesh-dp-instance");

    assertThat(collector(2).all()).containsExactly(new DashboardTemplate("test-mesh-service", edited, false));
    assertThat(collector(2).get("test-mesh-dp-instance")).isEmpty();
  }

  @Test
  void aShippedTemplateNamedLikeAUsersIsNotInstalled() {
    String mine = dashboard("Test-Mesh-Service");
    String id = collector(1).add(mine).id();

    UiTemplates.ShippedLoad load = collector(1).loadShipped();

    assertThat(load.skipped()).containsExactly("test-mesh-service");
    assertThat(load.created()).containsExactly("test-mesh-dp-instance");
    assertThat(collector(1).all()).extracting(DashboardTemplate::id).containsExactly(id, "test-mesh-dp-instance");
  }

  @Test
  void twoCollectorsLoadingAtOnceMakeExactlyOneCopyOfEach() throws Exception {
    for (int round = 0; round < 20; round++) {
      storage.management().list(UiTemplates.KIND).forEach(d -> storage.management().delete(d.kind(), d.id()));
      List<UiTemplates.ShippedLoad> loads = both(() -> collector(1).loadShipped());

      List<String> created = new ArrayList<>(loads.get(0).created());
      created.addAll(loads.get(1).created());
      assertThat(created).containsExactlyInAnyOrder("test-mesh-service", "test-mesh-dp-instance");
      assertThat(storage.management().list(UiTemplates.KIND)).extracting(ManagedDocument::id, ManagedDocument::version)
          .containsExactly(tuple("test-mesh-dp-instance", 1L),
              tuple("test-mesh-service", 1L));
    }
  }

  @Test
  void concurrentChangesFromTwoCollectorsAreEachAppliedOrRefusedClearly() throws Exception {
    String id = collector(1).add(DASHBOARD).id();
    int perCollector = 40;
    AtomicInteger collectorNo = new AtomicInteger();
    List<List<TemplateChange>> answers = both(() -> {
      String me = "c" + collectorNo.incrementAndGet();
      UiTemplates templates = collector(1);
      List<TemplateChange> out = new ArrayList<>();
      for (int i = 0; i < perCollector; i++) {
        out.add(templates.change(id, dashboard(me + "-" + i)));
      }
      return out;
    });

    List<TemplateChange> all = new ArrayList<>(answers.get(0));
    all.addAll(answers.get(1));
    assertThat(all).allSatisfy(c -> assertThat(c.status() || UiTemplates.BUSY.equals(c.message())).isTrue());
    long landed = all.stream().filter(TemplateChange::status).count();
    // Every change that answered true was written as its own version: none overwrote another unseen.
    assertThat(stored(id).version()).isEqualTo(1 + landed);
    assertThat(collector(1).get(id).orElseThrow().configuration()).matches(".*\"name\":\"c[12]-\\d+\".*");
  }

  /** Runs the task on two threads at once, as two collectors would, and returns both results. */
  private <T> List<T> both(Callable<T> task) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      futures.add(threads.submit(() -> {
        go.await();
        return task.call();
      }));
    }
    go.countDown();
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
      out.add(f.get(1, TimeUnit.MINUTES));
    }
    return out;
  }
}
