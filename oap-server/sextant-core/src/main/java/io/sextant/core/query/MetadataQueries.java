package io.sextant.core.query;

import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.Retention;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Services, instances, endpoints and layers, as the metadata schema asks for them. */
public final class MetadataQueries {
  private final StorageComponent storage;

  private static final int MAX_ENDPOINTS_READ = 10_000;

  public MetadataQueries(StorageComponent storage) {
    this.storage = storage;
  }


  public List<ServiceMeta> services(String layer) {
    List<ServiceMeta> all = storage.metadata().services();
    if (layer == null || layer.isEmpty()) {
      return all;
    }
    return all.stream().filter(s -> s.layers().contains(layer)).toList();
  }

  public List<String> layers() {
    Set<String> layers = new java.util.TreeSet<>();
    storage.metadata().services().forEach(s -> layers.addAll(s.layers()));
    return new ArrayList<>(layers);
  }

  public Optional<ServiceMeta> service(String serviceId) {
    return storage.metadata().service(serviceId);
  }

  public Optional<ServiceMeta> findService(String name) {
    return service(EntityIds.serviceId(name, true)).or(() -> service(EntityIds.serviceId(name, false)));
  }

  public List<InstanceMeta> instances(String serviceId, QueryDuration d) {
    return storage.metadata().instances(serviceId, d.startMinute(), d.endMinute());
  }

  public Optional<InstanceMeta> instance(String instanceId) {
    return storage.metadata().instance(instanceId);
  }

  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit) {
    return storage.metadata().endpoints(serviceId, keyword, limit);
  }

  /**
   * As above, only endpoints seen in {@code seenIn} (all when null). Endpoints per service are
   * bounded by the collector's budget, so reading them all and filtering costs little.
   */
  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit, QueryDuration seenIn) {
    if (seenIn == null) {
      return endpoints(serviceId, keyword, limit);
    }
    return storage.metadata().endpoints(serviceId, keyword, MAX_ENDPOINTS_READ).stream()
        .filter(e -> e.lastSeen() >= seenIn.startMinute() && e.firstSeen() <= seenIn.endMinute())
        .limit(limit)
        .toList();
  }

  /** How long the storage keeps each kind of data. */
  public Retention retention() {
    return storage.retention();
  }

  public Optional<EndpointMeta> endpoint(String endpointId) {
    return storage.metadata().endpoint(endpointId);
  }
}
