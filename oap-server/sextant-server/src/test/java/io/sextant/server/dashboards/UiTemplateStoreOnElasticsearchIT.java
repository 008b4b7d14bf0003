package io.sextant.server.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.server.testing.TestServer;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Horizon seeds its rows only when it starts, so they must outlive a restart of Sextant: written
 * through one collector on Elasticsearch, read back byte for byte, disabled state included, from the
 * next one.
 */
class UiTemplateStoreOnElasticsearchIT {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();
  private static final String TOKEN = "horizon-bff-token";

  @Test
  void rowsSurviveARestart() throws Exception {
    Map<String, String> settings = Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts",
        ES.hostAndPort(), "auth.anonymous", "auto", "auth.editorTokens", TOKEN);
    String run = UUID.randomUUID().toString();
    String mesh = "horizon.layer.MESH." + run;
    String dp = "horizon.layer.MESH_DP." + run;
    String body = "{\"kind\":\"layer\",\n  \"layer\": \"MESH\"}";
    try (TestServer first = new TestServer(settings)) {
      UiTemplateStore store = new UiTemplateStore(first, "Bearer " + TOKEN);
      assertThat(store.create(mesh, body).status()).isEqualTo(200);
      assertThat(store.create(dp, body).status()).isEqualTo(200);
      assertThat(store.disable(dp).status()).isEqualTo(200);
    }
    try (TestServer next = new TestServer(settings)) {
      UiTemplateStore store = new UiTemplateStore(next, "Bearer " + TOKEN);
      assertThat(UiTemplateStore.rows(store.list(true), "horizon.layer.")).filteredOn(r -> r.contains(run))
          .containsExactlyInAnyOrder(mesh + " false " + body, dp + " true " + body);
      assertThat(store.create(mesh, body).status()).isEqualTo(409);
    }
  }
}
