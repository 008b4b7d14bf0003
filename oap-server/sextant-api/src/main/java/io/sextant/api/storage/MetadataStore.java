package io.sextant.api.storage;

import java.util.List;
import java.util.Optional;

/**
 * Services, instances, endpoints and processes. Upserts merge: first seen is the minimum, last seen the
 * maximum, layers and attributes are unioned.
 */
public interface MetadataStore {
  void upsertServices(List<ServiceMeta> services);

  void upsertInstances(List<InstanceMeta> instances);

  void upsertEndpoints(List<EndpointMeta> endpoints);

  /**
   * All services. The list (and what it holds) is never changed once answered: a caller may keep
   * it and compare it with a later answer (the global topology does).
   */
  List<ServiceMeta> services();

  Optional<ServiceMeta> service(String serviceId);

  /** Instances of a service seen in any minute of {@code [startMinute, endMinute]}. */
  List<InstanceMeta> instances(String serviceId, long startMinute, long endMinute);

  Optional<InstanceMeta> instance(String instanceId);

  /** Endpoints of a service whose name contains {@code keyword} (any, if empty), at most limit. */
  List<EndpointMeta> endpoints(String serviceId, String keyword, int limit);

  Optional<EndpointMeta> endpoint(String endpointId);

  /** Merges processes as {@link ProcessMeta} describes. */
  default void upsertProcesses(List<ProcessMeta> processes) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " stores no processes");
  }

  default List<ProcessMeta> processes(ProcessQuery query) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " stores no processes");
  }

  default Optional<ProcessMeta> process(String processId) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " stores no processes");
  }
}
