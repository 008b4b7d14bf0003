package io.sextant.server.rover;

import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Rover's sampled traces end to end on a real Elasticsearch server. */
class RoverSampledTracesOnElasticsearchIT extends RoverSampledTraces {
  @RegisterExtension
  static final ElasticsearchExtension ES = ElasticsearchExtension.shared();

  @Override
  protected Map<String, String> storage() {
    return Map.of("storage.selector", "elasticsearch", "storage.elasticsearch.hosts", ES.hostAndPort());
  }
}
