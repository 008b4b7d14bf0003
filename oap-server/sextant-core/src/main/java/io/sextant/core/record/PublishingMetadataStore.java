package io.sextant.core.record;

import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.ForwardingMetadataStore;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import java.util.List;

/**
 * The metadata store as receivers get it (SkyWalking Rover registers processes, services and
 * instances itself): after each upsert it publishes (Elasticsearch refreshes), as {@link
 * StorageRecordWriter} does, because Rover's next call (a task poll ten seconds later) searches for
 * what it just registered, and the flusher publishes only after writing metrics. Rover writes each
 * entity at most once a minute, so the extra refreshes are few.
 */
public final class PublishingMetadataStore extends ForwardingMetadataStore {
  private final StorageComponent storage;

  public PublishingMetadataStore(StorageComponent storage) {
    this.storage = storage;
  }

  @Override
  protected MetadataStore delegate() {
    return storage.metadata();
  }

  @Override
  public void upsertServices(List<ServiceMeta> services) {
    super.upsertServices(services);
    storage.publish();
  }

  @Override
  public void upsertInstances(List<InstanceMeta> instances) {
    super.upsertInstances(instances);
    storage.publish();
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> endpoints) {
    super.upsertEndpoints(endpoints);
    storage.publish();
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> processes) {
    super.upsertProcesses(processes);
    storage.publish();
  }
}
