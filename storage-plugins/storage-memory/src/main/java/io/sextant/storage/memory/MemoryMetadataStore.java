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
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.ToLongFunction;

/**
 * Services, instances, endpoints and processes keyed by id; upserts merge seen-times, layers,
 * attributes. Bounded by an estimate of its bytes: past {@code maxBytes} it forgets entities until
 * a tenth is free, those seen longest ago first and, among those seen in the same minute, the
 * newest first, so a flood of new names evicts itself before the services a mesh already had.
 */
final class MemoryMetadataStore implements MetadataStore {
  /** An entity's fixed cost: map node, record, its strings' headers, seen-times. */
  private static final int ENTITY_BYTES = 200;

  private final ConcurrentHashMap<String, ServiceMeta> services = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, InstanceMeta> instances = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, EndpointMeta> endpoints = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ProcessMeta> processes = new ConcurrentHashMap<>();
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();

  MemoryMetadataStore(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Estimated heap the entities take. */
  long bytes() {
    return bytes.get();
  }

  /** Entities forgotten to stay within the bound. */
  long evicted() {
    return evicted.get();
  }

  private static long weight(String... strings) {
    long chars = 0;
    for (String s : strings) {
      chars += s == null ? 0 : s.length();
    }
    return ENTITY_BYTES + 2 * chars;
  }

  private static long weight(Map<String, String> attributes) {
    long w = 0;
    for (Map.Entry<String, String> a : attributes.entrySet()) {
      w += weight(a.getKey(), a.getValue()) - ENTITY_BYTES / 2;
    }
    return w;
  }

  private <T> void put(ConcurrentHashMap<String, T> map, String id, T value, BinaryOperator<T> merge,
      ToLongFunction<T> weigher) {
    map.compute(id, (k, old) -> {
      T merged = old == null ? value : merge.apply(old, value);
      bytes.addAndGet(weigher.applyAsLong(merged) - (old == null ? 0 : weigher.applyAsLong(old)));
      return merged;
    });
  }

  private void removed(long weight) {
    bytes.addAndGet(-weight);
    evicted.incrementAndGet();
  }

  /** Past the bound, forgets entities until a tenth of it is free (see the class comment for the order). */
  private synchronized void bound() {
    if (bytes.get() <= maxBytes) {
      return;
    }
    List<Victim> victims = new ArrayList<>();
    victims(victims, services, ServiceMeta::lastSeen, ServiceMeta::firstSeen, MemoryMetadataStore::weigh);
    victims(victims, instances, InstanceMeta::lastSeen, InstanceMeta::firstSeen, MemoryMetadataStore::weigh);
    victims(victims, endpoints, EndpointMeta::lastSeen, EndpointMeta::firstSeen, MemoryMetadataStore::weigh);
    victims(victims, processes, ProcessMeta::lastPing, ProcessMeta::firstSeen, MemoryMetadataStore::weigh);
    victims.sort(Comparator.comparingLong(Victim::lastSeen).thenComparing(Comparator.comparingLong(Victim::firstSeen)
        .reversed()));
    long target = maxBytes - maxBytes / 10;
    for (Victim v : victims) {
      if (bytes.get() <= target) {
        break;
      }
      v.remove().run();
    }
  }

  private record Victim(long lastSeen, long firstSeen, Runnable remove) {}

  private <T> void victims(List<Victim> out, ConcurrentHashMap<String, T> map, ToLongFunction<T> lastSeen,
      ToLongFunction<T> firstSeen, ToLongFunction<T> weigher) {
    map.forEach((id, v) -> out.add(new Victim(lastSeen.applyAsLong(v), firstSeen.applyAsLong(v), () -> {
      if (map.remove(id, v)) {
        removed(weigher.applyAsLong(v));
      }
    })));
  }

  private static long weigh(ServiceMeta s) {
    return weight(s.id(), s.name()) + 40L * s.layers().size();
  }

  private static long weigh(InstanceMeta i) {
    return weight(i.id(), i.serviceId(), i.name(), i.layer()) + weight(i.attributes());
  }

  private static long weigh(EndpointMeta e) {
    return weight(e.id(), e.serviceId(), e.name());
  }

  private static long weigh(ProcessMeta p) {
    return weight(p.id(), p.serviceId(), p.instanceId(), p.name(), p.agentId()) + 400;
  }

  @Override
  public void upsertServices(List<ServiceMeta> list) {
    for (ServiceMeta s : list) {
      put(services, s.id(), s, (a, b) -> {
        TreeSet<String> layers = new TreeSet<>(a.layers());
        layers.addAll(b.layers());
        return new ServiceMeta(a.id(), a.name(), a.normal(), layers,
            Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen()));
      }, MemoryMetadataStore::weigh);
    }
    bound();
  }

  @Override
  public void upsertInstances(List<InstanceMeta> list) {
    for (InstanceMeta i : list) {
      put(instances, i.id(), i, (a, b) -> {
        HashMap<String, String> attributes = new HashMap<>(a.attributes());
        attributes.putAll(b.attributes());
        return new InstanceMeta(a.id(), a.serviceId(), a.name(), b.layer(), attributes,
            Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen()));
      }, MemoryMetadataStore::weigh);
    }
    bound();
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> list) {
    for (EndpointMeta e : list) {
      put(endpoints, e.id(), e, (a, b) -> new EndpointMeta(a.id(), a.serviceId(), a.name(),
          Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen())), MemoryMetadataStore::weigh);
    }
    bound();
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> list) {
    for (ProcessMeta p : list) {
      put(processes, p.id(), p, ProcessMeta::merge, MemoryMetadataStore::weigh);
    }
    bound();
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
    services.values().removeIf(s -> s.lastSeen() < minuteBefore && expired(weigh(s)));
    instances.values().removeIf(i -> i.lastSeen() < minuteBefore && expired(weigh(i)));
    endpoints.values().removeIf(e -> e.lastSeen() < minuteBefore && expired(weigh(e)));
    processes.values().removeIf(p -> p.lastPing() < minuteBefore && expired(weigh(p)));
  }

  private boolean expired(long weight) {
    bytes.addAndGet(-weight);
    return true;
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
