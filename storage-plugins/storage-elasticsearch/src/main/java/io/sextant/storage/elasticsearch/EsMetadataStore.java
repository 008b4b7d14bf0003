package io.sextant.storage.elasticsearch;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetadataStore;
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
 * Services, instances and endpoints. Without scripting there is no server-side merge, so each
 * writer keeps its own document per entity and day ({@code kind|id|writer|day}), merged with what
 * it wrote before that day; reads merge every writer's documents the same way the memory store
 * merges upserts.
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
