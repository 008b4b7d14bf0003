package io.sextant.core.record;

import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import java.util.List;
import java.util.Optional;

/**
 * The metadata store as receivers get it (SkyWalking Rover registers processes, services and
 * instances itself): after each upsert it publishes (Elasticsearch refreshes), as {@link
 * StorageRecordWriter} does, because Rover's next call (a task poll ten seconds later) searches for
 * what it just registered, and the flusher publishes only after writing metrics. Rover writes each
 * entity at most once a minute, so the extra refreshes are few.
 */
public final class PublishingMetadataStore implements MetadataStore {
  private final StorageComponent storage;

  public PublishingMetadataStore(StorageComponent storage) {
    this.storage = storage;
  }

  private MetadataStore store() {
    return storage.metadata();
  }

  @Override
  public void upsertServices(List<ServiceMeta> services) {
    store().upsertServices(services);
    storage.publish();
  }

  @Override
  public void upsertInstances(List<InstanceMeta> instances) {
    store().upsertInstances(instances);
    storage.publish();
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> endpoints) {
    store().upsertEndpoints(endpoints);
    storage.publish();
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> processes) {
    store().upsertProcesses(processes);
    storage.publish();
  }

  @Override
  public List<ServiceMeta> services() {
    return store().services();
  }

  @Override
  public Optional<ServiceMeta> service(String serviceId) {
    return store().service(serviceId);
  }

  @Override
  public List<InstanceMeta> instances(String serviceId, long startMinute, long endMinute) {
    return store().instances(serviceId, startMinute, endMinute);
  }

  @Override
  public Optional<InstanceMeta> instance(String instanceId) {
    return store().instance(instanceId);
  }

  @Override
  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit) {
    return store().endpoints(serviceId, keyword, limit);
  }

  @Override
  public Optional<EndpointMeta> endpoint(String endpointId) {
    return store().endpoint(endpointId);
  }

  @Override
  public List<ProcessMeta> processes(ProcessQuery query) {
    return store().processes(query);
  }

  @Override
  public Optional<ProcessMeta> process(String processId) {
    return store().process(processId);
  }
}
