package io.sextant.server.config;

import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.plugin.StorageFactory;
import io.sextant.receiver.ebpf.EbpfReceiverFactory;
import io.sextant.receiver.envoy.als.AlsReceiverFactory;
import io.sextant.receiver.envoy.metrics.EnvoyMetricsReceiverFactory;
import io.sextant.receiver.event.EventReceiverFactory;
import io.sextant.receiver.mesh.MeshReceiverFactory;
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
  public static final List<StorageFactory> STORAGE =
      List.of(new MemoryStorageFactory(), new ElasticsearchStorageFactory());

  /** Receivers; each one enabled by its {@code receiver.<name>.enabled} is served, in this order. */
  public static final List<ReceiverFactory> RECEIVERS =
      List.of(new MeshReceiverFactory(), new AlsReceiverFactory(), new EnvoyMetricsReceiverFactory(),
          new EventReceiverFactory(), new EbpfReceiverFactory());

  public static StorageFactory storage(String name) {
    return STORAGE.stream().filter(f -> f.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no storage backend named " + name));
  }
}
