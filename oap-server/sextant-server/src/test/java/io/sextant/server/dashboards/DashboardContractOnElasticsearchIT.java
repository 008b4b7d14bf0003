package io.sextant.server.dashboards;

import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shipped dashboards' contract on a real Elasticsearch server. */
class DashboardContractOnElasticsearchIT extends DashboardContract {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }
}
