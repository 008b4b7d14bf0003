package io.sextant.storage.elasticsearch;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.api.plugin.StorageFactory;
import io.sextant.api.storage.StorageComponent;
import java.util.List;

/** {@code storage.selector: elasticsearch}: the production store; it connects in {@code start()}. */
public final class ElasticsearchStorageFactory implements StorageFactory {
  @Override
  public String name() {
    return "elasticsearch";
  }

  @Override
  public List<ConfigKey> keys() {
    return ElasticsearchConfig.KEYS;
  }

  @Override
  public StorageComponent create(Settings settings, MeterRegistry meters) {
    return new ElasticsearchStorage(ElasticsearchConfig.load(settings), meters);
  }
}
