package io.sextant.server.config;

import io.sextant.api.plugin.StorageFactory;
import io.sextant.storage.elasticsearch.ElasticsearchStorageFactory;
import io.sextant.storage.memory.MemoryStorageFactory;
import java.util.List;

/**
 * The plugins this server is assembled from, as plain lists (a new backend or receiver is one line
 * here). Their declared keys are part of the validated configuration.
 */
public final class Plugins {
  private Plugins() {}

  /** Storage backends, by their {@code storage.selector} name; the first is the default. */
  public static final List<StorageFactory> STORAGE = List.of(new MemoryStorageFactory(), new ElasticsearchStorageFactory());

  public static StorageFactory storage(String name) {
    return STORAGE.stream().filter(f -> f.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no storage backend named " + name));
  }
}
