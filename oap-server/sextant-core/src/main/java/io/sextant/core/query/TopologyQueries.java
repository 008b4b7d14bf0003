package io.sextant.core.query;

import io.sextant.api.id.EntityIds;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.ProcessMeta;
import io.sextant.api.storage.ProcessQuery;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.core.query.TopologyView.Call;
import io.sextant.core.query.TopologyView.InstanceNode;
import io.sextant.core.query.TopologyView.InstanceTopology;
import io.sextant.core.query.TopologyView.Node;
import io.sextant.core.query.TopologyView.ProcessNode;
import io.sextant.core.query.TopologyView.ProcessTopology;
import io.sextant.core.query.TopologyView.Topology;
import io.sextant.core.topology.Components;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Service and instance topology: edges of all collectors, with the nodes they connect. */
public final class TopologyQueries {
  /** Layers whose last global topology is kept; others are built on every read. */
  private static final int MAX_KEPT_LAYERS = 16;

  private final StorageComponent storage;
  /** The last global topology per layer ("" for all), with the edges and services it was built of. */
  private final Map<String, Answered> lastGlobal = new ConcurrentHashMap<>();

  private record Answered(List<Edge> edges, List<ServiceMeta> services, Topology topology) {}

  public TopologyQueries(StorageComponent storage) {
    this.storage = storage;
  }

  /**
   * The global topology (of one layer's services, or all when {@code layer} is empty). A dashboard
   * reads it every few seconds and its edges rarely change: when the store answers the same edges
   * and services as for the last read of the layer, that read's topology is answered again, which
   * is most of the query's cost on the server (the Elasticsearch store answers an unchanged window
   * with the same list, so the comparison is one reference).
   */
  public Topology globalTopology(QueryDuration d, String layer) {
    String key = layer == null ? "" : layer;
    List<Edge> edges = storage.topology().read(Scope.SERVICE, d.startMinute(), d.endMinute());
    List<ServiceMeta> services = storage.metadata().services();
    Answered last = lastGlobal.get(key);
    if (last != null && last.edges().equals(edges) && last.services().equals(services)) {
      return last.topology();
    }
    Predicate<String> touches = id -> true;
    if (!key.isEmpty()) {
      Set<String> inLayer = new HashSet<>();
      services.stream().filter(s -> s.layers().contains(key)).forEach(s -> inLayer.add(s.id()));
      touches = inLayer::contains;
    }
    Topology topology = serviceTopology(edges, touches, () -> services);
    if (last != null || lastGlobal.size() < MAX_KEPT_LAYERS) {
      lastGlobal.put(key, new Answered(edges, services, topology));
    }
    return topology;
  }

  /** All service edges in the duration, keeping those that touch {@code keep}-accepted services. */
  public Topology serviceTopology(QueryDuration d, Predicate<String> touches) {
    return serviceTopology(storage.topology().read(Scope.SERVICE, d.startMinute(), d.endMinute()), touches,
        () -> storage.metadata().services());
  }

  private static Topology serviceTopology(List<Edge> edges, Predicate<String> touches,
      Supplier<List<ServiceMeta>> services) {
    Map<String, CallBuilder> calls = new LinkedHashMap<>();
    Set<String> ids = new LinkedHashSet<>();
    NodeTypes types = new NodeTypes();
    for (Edge e : edges) {
      if (!touches.test(e.sourceId()) && !touches.test(e.destId())) {
        continue;
      }
      calls.computeIfAbsent(e.relationId(), k -> new CallBuilder(e)).add(e);
      ids.add(e.sourceId());
      ids.add(e.destId());
      types.add(e);
    }
    // One metadata read for all nodes: a store round trip per node would dominate the query.
    Map<String, ServiceMeta> known = new HashMap<>();
    if (!ids.isEmpty()) {
      services.get().forEach(m -> known.put(m.id(), m));
    }
    List<Node> nodes = new ArrayList<>();
    ids.forEach(id -> nodes.add(serviceNode(id, types, Optional.ofNullable(known.get(id)))));
    nodes.sort(Comparator.comparing(Node::name));
    // Immutable: the global topology is answered again to later reads.
    return new Topology(List.copyOf(nodes), calls.values().stream().map(CallBuilder::build).toList());
  }

  private static Node serviceNode(String id, NodeTypes types, Optional<ServiceMeta> meta) {
    String name = meta.map(ServiceMeta::name).orElseGet(() -> EntityIds.parseServiceId(id).name());
    boolean real = meta.map(ServiceMeta::normal).orElseGet(() -> EntityIds.parseServiceId(id).normal());
    List<String> layers = meta.map(m -> List.copyOf(m.layers())).orElse(List.of());
    return new Node(id, name, types.typeOf(id, real), real, layers);
  }

  /** Instance edges between the two services, in either direction. */
  public InstanceTopology instanceTopology(String clientServiceId, String serverServiceId, QueryDuration d) {
    List<Edge> edges = storage.topology().read(Scope.SERVICE_INSTANCE, d.startMinute(), d.endMinute());
    Map<String, CallBuilder> calls = new LinkedHashMap<>();
    Map<String, InstanceNode> nodes = new TreeMap<>();
    for (Edge e : edges) {
      String src = EntityIds.parseChildId(e.sourceId()).serviceId();
      String dst = EntityIds.parseChildId(e.destId()).serviceId();
      boolean forward = src.equals(clientServiceId) && dst.equals(serverServiceId);
      boolean backward = src.equals(serverServiceId) && dst.equals(clientServiceId);
      if (!forward && !backward) {
        continue;
      }
      calls.computeIfAbsent(e.relationId(), k -> new CallBuilder(e)).add(e);
      nodes.computeIfAbsent(e.sourceId(), this::instanceNode);
      nodes.computeIfAbsent(e.destId(), this::instanceNode);
    }
    return new InstanceTopology(new ArrayList<>(nodes.values()),
        calls.values().stream().map(CallBuilder::build).toList());
  }

  private InstanceNode instanceNode(String instanceId) {
    EntityIds.ChildIdParts parts = EntityIds.parseChildId(instanceId);
    EntityIds.ServiceIdParts service = EntityIds.parseServiceId(parts.serviceId());
    return new InstanceNode(instanceId, parts.name(), parts.serviceId(), service.name(), null, service.normal());
  }

  /** Processes of one instance read to draw its process topology; an instance has a handful. */
  static final int MAX_PROCESSES_PER_INSTANCE = 10_000;

  /**
   * SkyWalking's process topology of an instance: the process relations its Rover reported in the
   * duration (a client-side edge whose client process, or a server-side edge whose server process,
   * belongs to the instance: Rover reports a relation from its local process's side), with every
   * process they connect that the metadata knows (virtual ones are not real).
   */
  public ProcessTopology processTopology(String instanceId, QueryDuration d) {
    Set<String> own = new HashSet<>();
    storage.metadata().processes(new ProcessQuery(null, instanceId, null, 0, Long.MAX_VALUE,
        MAX_PROCESSES_PER_INSTANCE)).forEach(p -> own.add(p.id()));
    Map<String, CallBuilder> calls = new TreeMap<>();
    Set<String> ids = new LinkedHashSet<>();
    if (!own.isEmpty()) {
      for (Edge e : storage.topology().read(Scope.PROCESS, d.startMinute(), d.endMinute())) {
        String local = e.detectPoint() == DetectPoint.SERVER ? e.destId() : e.sourceId();
        if (!own.contains(local)) {
          continue;
        }
        calls.computeIfAbsent(e.relationId(), k -> new CallBuilder(e)).add(e);
        ids.add(e.sourceId());
        ids.add(e.destId());
      }
    }
    List<ProcessNode> nodes = new ArrayList<>();
    for (String id : ids) {
      storage.metadata().process(id).ifPresent(p -> nodes.add(processNode(p)));
    }
    nodes.sort(Comparator.comparing(ProcessNode::name).thenComparing(ProcessNode::id));
    return new ProcessTopology(nodes, calls.values().stream().map(CallBuilder::build).toList());
  }

  private static ProcessNode processNode(ProcessMeta p) {
    return new ProcessNode(p.id(), p.serviceId(), EntityIds.parseServiceId(p.serviceId()).name(), p.instanceId(),
        EntityIds.parseChildId(p.instanceId()).name(), p.name(), !VIRTUAL.equals(p.detectType()));
  }

  /** SkyWalking's detect type of the processes standing for peers Rover could not attribute. */
  public static final String VIRTUAL = "VIRTUAL";

  private static final class CallBuilder {
    private final Edge first;
    private final Set<String> detectPoints = new LinkedHashSet<>();
    private final Set<String> sourceComponents = new LinkedHashSet<>();
    private final Set<String> targetComponents = new LinkedHashSet<>();

    CallBuilder(Edge first) {
      this.first = first;
    }

    void add(Edge e) {
      detectPoints.add(e.detectPoint().name());
      // As SkyWalking: the client side names the caller's component, the server side the callee's.
      (e.detectPoint() == io.sextant.api.model.DetectPoint.CLIENT ? sourceComponents : targetComponents)
          .add(e.component());
    }

    Call build() {
      List<String> dps = new ArrayList<>(detectPoints);
      dps.sort(Comparator.naturalOrder());
      return new Call(first.relationId(), first.sourceId(), first.destId(), dps, ordered(sourceComponents),
          ordered(targetComponents));
    }

    /**
     * The protocols (highest priority first) before tls/mtls, as SkyWalking lists them, whatever
     * order the store returned the edges in.
     */
    private static List<String> ordered(Set<String> components) {
      List<String> out = new ArrayList<>(components);
      out.sort(Comparator.comparing(Components::isTls)
          .thenComparing(Comparator.comparingInt(Components::priority).reversed()));
      return out;
    }
  }
}
