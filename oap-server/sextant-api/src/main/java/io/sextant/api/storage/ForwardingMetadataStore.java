package io.sextant.api.storage;

import java.util.List;
import java.util.Optional;

/** A metadata store that hands every call to {@link #delegate()}; a decorator overrides what it changes. */
public abstract class ForwardingMetadataStore implements MetadataStore {
  protected abstract MetadataStore delegate();

  @Override
  public void upsertServices(List<ServiceMeta> services) {
    delegate().upsertServices(services);
  }

  @Override
  public void upsertInstances(List<InstanceMeta> instances) {
    delegate().upsertInstances(instances);
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> endpoints) {
    delegate().upsertEndpoints(endpoints);
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> processes) {
    delegate().upsertProcesses(processes);
  }

  @Override
  public List<ServiceMeta> services() {
    return delegate().services();
  }

  @Override
  public Optional<ServiceMeta> service(String serviceId) {
    return delegate().service(serviceId);
  }

  @Override
  public List<InstanceMeta> instances(String serviceId, long startMinute, long endMinute) {
    return delegate().instances(serviceId, startMinute, endMinute);
  }

  @Override
  public Optional<InstanceMeta> instance(String instanceId) {
    return delegate().instance(instanceId);
  }

  @Override
  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit) {
    return delegate().endpoints(serviceId, keyword, limit);
  }

  @Override
  public Optional<EndpointMeta> endpoint(String endpointId) {
    return delegate().endpoint(endpointId);
  }

  @Override
  public List<ProcessMeta> processes(ProcessQuery query) {
    return delegate().processes(query);
  }

  @Override
  public Optional<ProcessMeta> process(String processId) {
    return delegate().process(processId);
  }
}
