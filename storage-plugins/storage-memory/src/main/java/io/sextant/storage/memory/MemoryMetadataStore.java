package io.sextant.storage.memory;

import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/** Services, instances, endpoints and processes keyed by id; upserts merge seen-times, layers, attributes. */
final class MemoryMetadataStore implements MetadataStore {
  private final ConcurrentHashMap<String, ServiceMeta> services = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, InstanceMeta> instances = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, EndpointMeta> endpoints = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ProcessMeta> processes = new ConcurrentHashMap<>();

  @Override
  public void upsertServices(List<ServiceMeta> list) {
    for (ServiceMeta s : list) {
      services.merge(s.id(), s, (a, b) -> {
        TreeSet<String> layers = new TreeSet<>(a.layers());
        layers.addAll(b.layers());
        return new ServiceMeta(a.id(), a.name(), a.normal(), layers,
            Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen()));
      });
    }
  }

  @Override
  public void upsertInstances(List<InstanceMeta> list) {
    for (InstanceMeta i : list) {
      instances.merge(i.id(), i, (a, b) -> {
        HashMap<String, String> attributes = new HashMap<>(a.attributes());
        attributes.putAll(b.attributes());
        return new InstanceMeta(a.id(), a.serviceId(), a.name(), b.layer(), attributes,
            Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen()));
      });
    }
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> list) {
    for (EndpointMeta e : list) {
      endpoints.merge(e.id(), e, (a, b) -> new EndpointMeta(a.id(), a.serviceId(), a.name(),
          Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen())));
    }
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> list) {
    for (ProcessMeta p : list) {
      processes.merge(p.id(), p, ProcessMeta::merge);
    }
  }

  @Override
  public List<ProcessMeta> processes(ProcessQuery q) {
    List<ProcessMeta> out = new ArrayList<>();
    for (ProcessMeta p : processes.values()) {
      if ((q.serviceId() == null || q.serviceId().equals(p.serviceId()))
          && (q.instanceId() == null || q.instanceId().equals(p.instanceId()))
          && (q.agentId() == null || q.agentId().equals(p.agentId()))
          && p.lastPing() >= q.startMinute() && p.firstSeen() <= q.endMinute()) {
        out.add(p);
        if (out.size() == q.limit()) {
          break;
        }
      }
    }
    return out;
  }

  @Override
  public Optional<ProcessMeta> process(String processId) {
    return Optional.ofNullable(processes.get(processId));
  }

  /** Forgets entities not seen since the given minute. */
  void expire(long minuteBefore) {
    services.values().removeIf(s -> s.lastSeen() < minuteBefore);
    instances.values().removeIf(i -> i.lastSeen() < minuteBefore);
    endpoints.values().removeIf(e -> e.lastSeen() < minuteBefore);
    processes.values().removeIf(p -> p.lastPing() < minuteBefore);
  }

  @Override
  public List<ServiceMeta> services() {
    List<ServiceMeta> out = new ArrayList<>(services.values());
    out.sort(Comparator.comparing(ServiceMeta::name));
    return out;
  }

  @Override
  public Optional<ServiceMeta> service(String serviceId) {
    return Optional.ofNullable(services.get(serviceId));
  }

  @Override
  public List<InstanceMeta> instances(String serviceId, long startMinute, long endMinute) {
    List<InstanceMeta> out = new ArrayList<>();
    for (InstanceMeta i : instances.values()) {
      if (i.serviceId().equals(serviceId) && i.lastSeen() >= startMinute && i.firstSeen() <= endMinute) {
        out.add(i);
      }
    }
    out.sort(Comparator.comparing(InstanceMeta::name));
    return out;
  }

  @Override
  public Optional<InstanceMeta> instance(String instanceId) {
    return Optional.ofNullable(instances.get(instanceId));
  }

  @Override
  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit) {
    List<EndpointMeta> out = new ArrayList<>();
    for (EndpointMeta e : endpoints.values()) {
      if (e.serviceId().equals(serviceId) && (keyword == null || keyword.isEmpty() || e.name().contains(keyword))) {
        out.add(e);
      }
    }
    out.sort(Comparator.comparing(EndpointMeta::name));
    return out.size() > limit ? new ArrayList<>(out.subList(0, limit)) : out;
  }

  @Override
  public Optional<EndpointMeta> endpoint(String endpointId) {
    return Optional.ofNullable(endpoints.get(endpointId));
  }
}
