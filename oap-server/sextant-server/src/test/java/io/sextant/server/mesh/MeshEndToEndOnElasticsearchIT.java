package io.sextant.server.mesh;

import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The end-to-end mesh contract on a real Elasticsearch server. */
class MeshEndToEndOnElasticsearchIT extends MeshEndToEnd {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }
}
