package io.sextant.server.dashboards;

import static io.sextant.server.dashboards.UiConfigurationIT.SHIPPED;
import static io.sextant.server.dashboards.UiConfigurationIT.SHIPPED_ID;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.core.management.ShippedTemplate;
import io.sextant.core.management.UiTemplates;
import io.sextant.server.testing.TestServer;
import io.sextant.server.testing.UiGraphql;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UI templates with two collectors (two Sextant servers) on one Elasticsearch index prefix: the shipped
 * templates are installed once however the starts interleave, concurrent changes through both servers
 * never overwrite each other unseen, and users' edits survive a restart and a shipped upgrade.
 */
class UiTemplatesOnElasticsearchIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  private final String prefix = "ui" + System.nanoTime();
  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  private final List<TestServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    threads.shutdownNow();
    servers.forEach(TestServer::close);
  }

  private TestServer collector(String id) {
    TestServer s = new TestServer(Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts",
        ES.hostAndPort(), "storage.elasticsearch.indexPrefix", prefix, "core.collectorId", id));
    synchronized (servers) {
      servers.add(s);
    }
    return s;
  }

  private static ManagementStore store(TestServer s) {
    return s.server.storage().management();
  }

  /** Runs one task per collector on its own thread, all released at once; returns their results. */
  private <T> List<T> atOnce(List<Callable<T>> tasks) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (Callable<T> task : tasks) {
      futures.add(threads.submit(() -> {
        go.await();
        return task.call();
      }));
    }
    go.countDown();
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
      out.add(f.get(3, TimeUnit.MINUTES));
    }
    return out;
  }

  @Test
  void twoCollectorsStartingTogetherInstallEachShippedTemplateExactlyOnce() throws Exception {
    List<TestServer> two = atOnce(List.of(() -> collector("a"), () -> collector("b")));

    List<String> shipped = UiConfigurationIT.shippedIds();
    assertThat(store(two.get(0)).list(UiTemplates.KIND)).extracting(ManagedDocument::id)
        .containsExactlyInAnyOrderElementsOf(shipped);
    assertThat(store(two.get(0)).list(UiTemplates.KIND)).extracting(ManagedDocument::version).containsOnly(1L);
    for (TestServer s : two) {
      assertThat(UiGraphql.template(s, SHIPPED_ID).get("configuration").asText()).isEqualTo(SHIPPED);
    }

    // The same race, many times: both collectors install into an empty store at the same moment.
    for (int round = 0; round < 5; round++) {
      store(two.get(0)).delete(UiTemplates.KIND, SHIPPED_ID);
      List<UiTemplates.ShippedLoad> loads = atOnce(List.of(
          () -> two.get(0).server.query().templates().loadShipped(),
          () -> two.get(1).server.query().templates().loadShipped()));
      assertThat(loads.get(0).created().size() + loads.get(1).created().size()).isEqualTo(1);
      assertThat(store(two.get(1)).list(UiTemplates.KIND)).extracting(ManagedDocument::version)
          .hasSize(shipped.size()).containsOnly(1L);
    }
  }

  @Test
  void concurrentChangesThroughTwoCollectorsEachLandOrAnswerAConflict() throws Exception {
    TestServer a = collector("a");
    TestServer b = collector("b");
    int perCollector = 12;
    List<List<JsonNode>> answers = atOnce(List.of(() -> changes(a, "a", perCollector),
        () -> changes(b, "b", perCollector)));

    int landed = 0;
    for (List<JsonNode> list : answers) {
      for (JsonNode answer : list) {
        assertThat(answer.get("id").asText()).isEqualTo(SHIPPED_ID);
        if (answer.get("status").asBoolean()) {
          landed++;
        } else {
          assertThat(answer.get("message").asText()).contains("changed by someone else at the same time; try again");
        }
      }
    }
    // Each change that answered true is its own version: none was overwritten without being stored.
    assertThat(store(a).get(UiTemplates.KIND, SHIPPED_ID).orElseThrow().version()).isEqualTo(1 + landed);
    String last = UiGraphql.template(a, SHIPPED_ID).get("configuration").asText();
    assertThat(UiGraphql.template(b, SHIPPED_ID).get("configuration").asText()).isEqualTo(last);
    assertThat(last).matches(".*\"name\":\"[ab]-\\d+\".*");
  }

  private static List<JsonNode> changes(TestServer s, String who, int n) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(UiGraphql.change(s, SHIPPED_ID, UiConfigurationIT.renamed(SHIPPED, who + "-" + i)));
    }
    return out;
  }

  @Test
  void aUserEditSurvivesARestartAndAShippedUpgrade() throws Exception {
    TestServer first = collector("a");
    String edited = UiConfigurationIT.renamed(SHIPPED, "My-Mesh-Service");
    assertThat(UiGraphql.change(first, SHIPPED_ID, edited).get("status").asBoolean()).isTrue();
    String mine = UiGraphql.add(first, UiConfigurationIT.MINE).get("id").asText();
    first.close();

    TestServer restarted = collector("a");
    assertThat(UiGraphql.template(restarted, SHIPPED_ID).get("configuration").asText()).isEqualTo(edited);
    assertThat(UiGraphql.template(restarted, mine).get("configuration").asText()).isEqualTo(UiConfigurationIT.MINE);

    // A newer release ships a new version of the edited dashboard and of one nobody touched.
    String untouchedV1 = UiConfigurationIT.MINE.replace("Mine", "Untouched");
    ManagementStore store = store(restarted);
    new UiTemplates(() -> store, () -> List.of(
        ShippedTemplate.of("sextant-test-only-untouched", untouchedV1, "MESH_DP_ServiceInstance_Untouched")))
        .loadShipped();
    String untouchedV2 = untouchedV1.replace("\"children\":[]", "\"children\":[{\"i\":\"0\"}]");
    UiTemplates.ShippedLoad upgrade = new UiTemplates(() -> store, () -> List.of(
        ShippedTemplate.of(SHIPPED_ID, UiConfigurationIT.renamed(SHIPPED, "Next-Release"), "MESH_Service_Next-Release"),
        ShippedTemplate.of("sextant-test-only-untouched", untouchedV2, "MESH_DP_ServiceInstance_Untouched")))
        .loadShipped();

    assertThat(upgrade.keptUserChanges()).containsExactly(SHIPPED_ID);
    assertThat(upgrade.upgraded()).containsExactly("sextant-test-only-untouched");
    assertThat(UiGraphql.template(restarted, SHIPPED_ID).get("configuration").asText()).isEqualTo(edited);
    assertThat(UiGraphql.template(restarted, "sextant-test-only-untouched").get("configuration").asText())
        .isEqualTo(untouchedV2);
  }
}
