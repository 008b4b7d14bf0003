package io.sextant.storage.elasticsearch;

import io.sextant.api.storage.StorageComponent;
import io.sextant.testkit.elasticsearch.ElasticsearchExtension;
import io.sextant.testkit.storage.StorageComplianceTest;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The storage contract, held against a real Elasticsearch server; each test gets its own indices. */
class ElasticsearchStorageComplianceIT extends StorageComplianceTest {
  @RegisterExtension
  static final ElasticsearchExtension ES = new ElasticsearchExtension();
  private static final AtomicInteger TESTS = new AtomicInteger();
  private ElasticsearchStorage es;

  static ElasticsearchConfig config(String hostAndPort, String prefix) {
    return new ElasticsearchConfig(List.of(hostAndPort), false, "", "", "", "", "", prefix, 1, 0, 30_000, 2, 15, 90);
  }

  @Override
  protected StorageComponent newStorage() {
    es = new ElasticsearchStorage(config(ES.hostAndPort(), "t" + TESTS.incrementAndGet()));
    es.start();
    return es;
  }

  @Override
  protected void awaitWrites() {
    es.refresh();
  }
}
