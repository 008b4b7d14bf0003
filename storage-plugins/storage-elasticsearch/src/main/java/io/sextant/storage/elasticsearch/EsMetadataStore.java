package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Services, instances, endpoints and processes. Without scripting there is no server-side merge, so each
 * writer keeps its own document per entity and day ({@code kind|id|writer|day}), merged with what
 * it wrote before that day; reads merge every writer's documents the same way the memory store
 * merges upserts. A process document keeps its last ping in {@code lastSeen}; processes merge by
 * {@link ProcessMeta#merge}, so the newest report describes them whichever collector wrote it.
 *
 * <p>The merged list of services is read by every topology and service-list query, and fetching a
 * few hundred documents costs Elasticsearch more than the topology aggregation itself. It is kept
 * for a few seconds: {@link #published()} drops it once this collector's writes are searchable, so
 * only another collector's new services can show late, by at most that time.
 */
final class EsMetadataStore implements MetadataStore {
  private static final int MAX_CACHED = 200_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ElasticsearchClient client;
  private final Bulk bulk;
  private final Indices indices;
  private final String writer;
  private final ConcurrentHashMap<String, Map<String, Object>> written = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ProcessMeta> writtenProcesses = new ConcurrentHashMap<>();
  private final long servicesCacheNanos;
  private final AtomicLong publications = new AtomicLong();
  private volatile ServicesRead lastServices;

  /** A services list, when it was read and how many publications had happened before. */
  private record ServicesRead(List<ServiceMeta> services, long readAtNanos, long publications) {}

  EsMetadataStore(ElasticsearchClient client, Bulk bulk, Indices indices, String writer, int servicesCacheSeconds) {
    this.client = client;
    this.bulk = bulk;
    this.indices = indices;
    this.writer = writer;
    this.servicesCacheNanos = TimeUnit.SECONDS.toNanos(servicesCacheSeconds);
  }

  /** This collector's writes are searchable now: the next services read goes to Elasticsearch. */
  void published() {
    publications.incrementAndGet();
  }

  @Override
  public void upsertServices(List<ServiceMeta> services) {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (ServiceMeta s : services) {
      Map<String, Object> d = doc("service", s.id(), s.id(), s.name(), s.firstSeen(), s.lastSeen());
      d.put("normal", s.normal());
      d.put("layers", new ArrayList<>(s.layers()));
      docs.add(d);
    }
    write(docs);
  }

  @Override
  public void upsertInstances(List<InstanceMeta> instances) {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (InstanceMeta i : instances) {
      Map<String, Object> d = doc("instance", i.id(), i.serviceId(), i.name(), i.firstSeen(), i.lastSeen());
      d.put("layer", i.layer());
      d.put("attrs", json(i.attributes()));
      docs.add(d);
    }
    write(docs);
  }

  @Override
  public void upsertEndpoints(List<EndpointMeta> endpoints) {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (EndpointMeta e : endpoints) {
      docs.add(doc("endpoint", e.id(), e.serviceId(), e.name(), e.firstSeen(), e.lastSeen()));
    }
    write(docs);
  }

  @Override
  public void upsertProcesses(List<ProcessMeta> processes) {
    if (writtenProcesses.size() > MAX_CACHED) {
      writtenProcesses.clear(); // as for the other kinds: reads still merge every document
    }
    List<Bulk.Doc> out = new ArrayList<>();
    for (ProcessMeta p : processes) {
      String docId = "process|" + p.id() + "|" + writer + "|" + p.lastPing() / 10_000;
      ProcessMeta merged = writtenProcesses.merge(docId, p, ProcessMeta::merge);
      out.add(new Bulk.Doc(indices.metadata(), docId, processDoc(merged, docId)));
    }
    bulk.index("metadata", out);
  }

  private Map<String, Object> processDoc(ProcessMeta p, String docId) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", "process");
    d.put("id", p.id());
    d.put("serviceId", p.serviceId());
    d.put("instanceId", p.instanceId());
    d.put("name", p.name());
    d.put("layer", p.layer());
    d.put("agentId", p.agentId());
    d.put("detectType", p.detectType());
    d.put("labels", p.labels());
    d.put("props", json(p.properties()));
    d.put("profiling", p.profilingSupported());
    d.put("firstSeen", p.firstSeen());
    d.put("lastSeen", p.lastPing());
    d.put("writer", writer);
    d.put("docId", docId);
    return d;
  }

  @SuppressWarnings("unchecked")
  private static ProcessMeta process(Map<String, Object> d) {
    Object props = d.get("props");
    return new ProcessMeta((String) d.get("id"), (String) d.get("serviceId"), (String) d.get("instanceId"),
        (String) d.get("name"), str(d, "layer"), str(d, "agentId"), str(d, "detectType"),
        (List<String>) d.getOrDefault("labels", List.of()), props == null ? Map.of() : attrs(Map.of("attrs", props)),
        (Boolean) d.getOrDefault("profiling", false), num(d, "firstSeen"), num(d, "lastSeen"));
  }

  private static String str(Map<String, Object> d, String field) {
    Object v = d.get(field);
    return v == null ? "" : (String) v;
  }

  /** Every process document matching the filters, merged per process id. */
  private Map<String, ProcessMeta> findProcesses(List<Query> filters) {
    Map<String, ProcessMeta> byId = new LinkedHashMap<>();
    List<Query> all = new ArrayList<>(filters);
    all.add(term("kind", "process"));
    Search.all(client, indices.metadata(), all, "docId", d -> byId.merge((String) d.get("id"), process(d),
        ProcessMeta::merge));
    return byId;
  }

  /**
   * Service and instance are part of a process's id, so they filter documents; the agent and the
   * seen-times are merged values, so they filter merged processes (one writer's document may name
   * an agent another's newer one replaced). An agent filter first finds the candidate ids.
   */
  @Override
  public List<ProcessMeta> processes(ProcessQuery q) {
    List<Query> filters = new ArrayList<>();
    if (q.serviceId() != null) {
      filters.add(term("serviceId", q.serviceId()));
    }
    if (q.instanceId() != null) {
      filters.add(term("instanceId", q.instanceId()));
    }
    if (q.agentId() != null) {
      List<Query> byAgent = new ArrayList<>(filters);
      byAgent.add(term("agentId", q.agentId()));
      List<FieldValue> ids = findProcesses(byAgent).keySet().stream().map(FieldValue::of).toList();
      if (ids.isEmpty()) {
        return List.of();
      }
      filters.add(Query.of(x -> x.terms(t -> t.field("id").terms(v -> v.value(ids)))));
    }
    List<ProcessMeta> out = new ArrayList<>();
    for (ProcessMeta p : findProcesses(filters).values()) {
      if ((q.agentId() == null || q.agentId().equals(p.agentId()))
          && p.lastPing() >= q.startMinute() && p.firstSeen() <= q.endMinute()) {
        out.add(p);
      }
    }
    out.sort(Comparator.comparing(ProcessMeta::id));
    return out.size() > q.limit() ? new ArrayList<>(out.subList(0, q.limit())) : out;
  }

  @Override
  public Optional<ProcessMeta> process(String processId) {
    return Optional.ofNullable(findProcesses(List.of(term("id", processId))).get(processId));
  }

  private Map<String, Object> doc(String kind, String id, String serviceId, String name, long first, long last) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", kind);
    d.put("id", id);
    d.put("serviceId", serviceId);
    d.put("name", name);
    d.put("firstSeen", first);
    d.put("lastSeen", last);
    d.put("writer", writer);
    d.put("docId", kind + "|" + id + "|" + writer + "|" + last / 10_000);
    return d;
  }

  private void write(List<Map<String, Object>> docs) {
    if (written.size() > MAX_CACHED) {
      written.clear(); // only costs a narrower document for the rest of the day; reads still merge
    }
    List<Bulk.Doc> out = new ArrayList<>();
    for (Map<String, Object> d : docs) {
      String docId = (String) d.get("docId");
      Map<String, Object> merged = written.merge(docId, d, EsMetadataStore::merge);
      out.add(new Bulk.Doc(indices.metadata(), docId, merged));
    }
    bulk.index("metadata", out);
  }

  /** Merges two documents of one entity: widest seen range, union of layers and attributes. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> merge(Map<String, Object> a, Map<String, Object> b) {
    Map<String, Object> m = new LinkedHashMap<>(a);
    m.put("firstSeen", Math.min(num(a, "firstSeen"), num(b, "firstSeen")));
    m.put("lastSeen", Math.max(num(a, "lastSeen"), num(b, "lastSeen")));
    if (a.containsKey("layers") || b.containsKey("layers")) {
      TreeSet<String> layers = new TreeSet<>();
      layers.addAll((List<String>) a.getOrDefault("layers", List.of()));
      layers.addAll((List<String>) b.getOrDefault("layers", List.of()));
      m.put("layers", new ArrayList<>(layers));
    }
    if (a.containsKey("attrs") || b.containsKey("attrs")) {
      Map<String, String> attrs = new HashMap<>(attrs(a));
      attrs.putAll(attrs(b));
      m.put("attrs", json(attrs));
    }
    if (b.containsKey("layer")) {
      m.put("layer", b.get("layer"));
    }
    return m;
  }

  private static long num(Map<String, Object> d, String field) {
    return ((Number) d.get(field)).longValue();
  }

  private static Map<String, String> attrs(Map<String, Object> d) {
    Object s = d.get("attrs");
    if (s == null) {
      return Map.of();
    }
    try {
      return JSON.readValue((String) s, new TypeReference<Map<String, String>>() {});
    } catch (JsonProcessingException e) {
      return Map.of();
    }
  }

  private static String json(Map<String, String> attributes) {
    try {
      return JSON.writeValueAsString(attributes);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every document matching the filters, merged per entity id. */
  private Map<String, Map<String, Object>> find(List<Query> filters) {
    Map<String, Map<String, Object>> byId = new LinkedHashMap<>();
    Search.all(client, indices.metadata(), filters, "docId",
        d -> byId.merge((String) d.get("id"), d, EsMetadataStore::merge));
    return byId;
  }

  private static Query term(String field, String value) {
    return Query.of(q -> q.term(t -> t.field(field).value(value)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<ServiceMeta> services() {
    ServicesRead last = lastServices;
    long now = System.nanoTime();
    long published = publications.get();
    if (last != null && last.publications() == published && now - last.readAtNanos() < servicesCacheNanos) {
      return last.services();
    }
    List<ServiceMeta> out = new ArrayList<>();
    find(List.of(term("kind", "service"))).values().forEach(d -> out.add(service(d)));
    out.sort(Comparator.comparing(ServiceMeta::name));
    // Counted before the read: a publication during it makes this read stale at once.
    List<ServiceMeta> services = List.copyOf(out);
    lastServices = new ServicesRead(services, now, published);
    return services;
  }

  @SuppressWarnings("unchecked")
  private static ServiceMeta service(Map<String, Object> d) {
    return new ServiceMeta((String) d.get("id"), (String) d.get("name"), (Boolean) d.getOrDefault("normal", true),
        new TreeSet<>((List<String>) d.getOrDefault("layers", List.of())), num(d, "firstSeen"), num(d, "lastSeen"));
  }

  @Override
  public Optional<ServiceMeta> service(String serviceId) {
    return find(List.of(term("kind", "service"), term("id", serviceId))).values().stream().findFirst()
        .map(EsMetadataStore::service);
  }

  private static InstanceMeta instance(Map<String, Object> d) {
    return new InstanceMeta((String) d.get("id"), (String) d.get("serviceId"), (String) d.get("name"),
        (String) d.get("layer"), attrs(d), num(d, "firstSeen"), num(d, "lastSeen"));
  }

  @Override
  public List<InstanceMeta> instances(String serviceId, long startMinute, long endMinute) {
    List<InstanceMeta> out = new ArrayList<>();
    for (Map<String, Object> d : find(List.of(term("kind", "instance"), term("serviceId", serviceId))).values()) {
      InstanceMeta i = instance(d);
      if (i.lastSeen() >= startMinute && i.firstSeen() <= endMinute) {
        out.add(i);
      }
    }
    out.sort(Comparator.comparing(InstanceMeta::name));
    return out;
  }

  @Override
  public Optional<InstanceMeta> instance(String instanceId) {
    return find(List.of(term("kind", "instance"), term("id", instanceId))).values().stream().findFirst()
        .map(EsMetadataStore::instance);
  }

  private static EndpointMeta endpoint(Map<String, Object> d) {
    return new EndpointMeta((String) d.get("id"), (String) d.get("serviceId"), (String) d.get("name"),
        num(d, "firstSeen"), num(d, "lastSeen"));
  }

  @Override
  public List<EndpointMeta> endpoints(String serviceId, String keyword, int limit) {
    List<Query> filters = new ArrayList<>(List.of(term("kind", "endpoint"), term("serviceId", serviceId)));
    if (keyword != null && !keyword.isEmpty()) {
      String pattern = "*" + keyword.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?") + "*";
      filters.add(Query.of(q -> q.wildcard(w -> w.field("name").value(pattern))));
    }
    List<EndpointMeta> out = new ArrayList<>();
    find(filters).values().forEach(d -> out.add(endpoint(d)));
    out.sort(Comparator.comparing(EndpointMeta::name));
    return out.size() > limit ? new ArrayList<>(out.subList(0, limit)) : out;
  }

  @Override
  public Optional<EndpointMeta> endpoint(String endpointId) {
    return find(List.of(term("kind", "endpoint"), term("id", endpointId))).values().stream().findFirst()
        .map(EsMetadataStore::endpoint);
  }
}
