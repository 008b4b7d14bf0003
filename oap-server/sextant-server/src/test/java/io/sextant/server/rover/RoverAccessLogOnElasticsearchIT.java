package io.sextant.server.rover;

import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Rover's access log end to end on Elasticsearch: the same assertions as on memory. */
class RoverAccessLogOnElasticsearchIT extends RoverAccessLogEndToEnd {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }
}
