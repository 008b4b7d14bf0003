package io.sextant.core.query;

import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.core.query.HierarchyRules.Link;
import io.sextant.core.query.HierarchyView.InstanceRelation;
import io.sextant.core.query.HierarchyView.LayerLevel;
import io.sextant.core.query.HierarchyView.RelatedInstance;
import io.sextant.core.query.HierarchyView.RelatedService;
import io.sextant.core.query.HierarchyView.ServiceRelation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Service and instance hierarchy as SkyWalking 10.1 answers it, computed at query time from the
 * services the metadata knows (each with its layers) and {@link HierarchyRules}: a service in
 * layer U is above a service in layer L when a rule links U to L and matches their names. Nothing
 * is stored.
 */
public final class HierarchyQueries {
  /** SkyWalking's depth for a service's hierarchy; an instance's looks one level up and down. */
  private static final int MAX_DEPTH = 10;

  private final StorageComponent storage;

  public HierarchyQueries(StorageComponent storage) {
    this.storage = storage;
  }

  public List<LayerLevel> layerLevels() {
    List<LayerLevel> out = new ArrayList<>();
    HierarchyRules.LEVELS.forEach((layer, level) -> out.add(new LayerLevel(layer, level)));
    return out;
  }

  /**
   * Every relation reachable from the service in {@code layer} (up and down, at most ten steps),
   * leaving out a direct relation that a longer path implies (MESH → K8S_SERVICE when MESH →
   * MESH_DP → K8S_SERVICE exists). An unknown service or layer has none.
   */
  public List<ServiceRelation> serviceHierarchy(String serviceId, String layer) {
    Graph graph = graph();
    RelatedService self = graph.node(serviceId, layer);
    if (self == null) {
      return List.of();
    }
    Set<ServiceRelation> relations = new LinkedHashSet<>();
    walk(graph, self, MAX_DEPTH, relations);
    relations.removeIf(r -> graph.impliedByLongerPath(r));
    return List.copyOf(relations);
  }

  /**
   * The instance's counterparts in the services directly above and below its service in {@code
   * layer}: instances of the same name, or whose pod/hostname attribute names the same host. An
   * unknown instance has none.
   */
  public List<InstanceRelation> instanceHierarchy(String instanceId, String layer) {
    Optional<InstanceMeta> found = storage.metadata().instance(instanceId);
    if (found.isEmpty()) {
      return List.of();
    }
    InstanceMeta meta = found.get();
    String serviceId = EntityIds.parseChildId(instanceId).serviceId();
    Graph graph = graph();
    RelatedService service = graph.node(serviceId, layer);
    if (service == null) {
      return List.of();
    }
    Set<ServiceRelation> direct = new LinkedHashSet<>();
    walk(graph, service, 1, direct);
    EntityIds.ServiceIdParts parts = EntityIds.parseServiceId(serviceId);
    RelatedInstance self = new RelatedInstance(meta.id(), meta.name(), serviceId, parts.name(), layer, parts.normal());
    Set<InstanceRelation> out = new LinkedHashSet<>();
    for (ServiceRelation r : direct) {
      // The same instance may be in both services (one service in two layers): skip self's layer.
      if (!layer.equals(r.lowerService().layer())) {
        counterpart(meta, r.lowerService()).ifPresent(lower -> out.add(new InstanceRelation(self, lower)));
      }
      if (!layer.equals(r.upperService().layer())) {
        counterpart(meta, r.upperService()).ifPresent(upper -> out.add(new InstanceRelation(upper, self)));
      }
    }
    return List.copyOf(out);
  }

  private Optional<RelatedInstance> counterpart(InstanceMeta self, RelatedService in) {
    return storage.metadata().instances(in.id(), 0, Long.MAX_VALUE).stream()
        .filter(candidate -> sameHost(self, candidate))
        .findFirst()
        .map(i -> new RelatedInstance(i.id(), i.name(), in.id(), in.name(), in.layer(), in.normal()));
  }

  /** SkyWalking's instance match: equal names, or a pod/hostname attribute that names the other. */
  private static boolean sameHost(InstanceMeta self, InstanceMeta candidate) {
    if (candidate.name().equals(self.name())) {
      return true;
    }
    Optional<Map.Entry<String, String>> host = hostAttribute(self);
    if (host.isPresent()) {
      String name = host.get().getKey();
      String value = host.get().getValue();
      return value.equals(candidate.attributes().get(name))
          || candidate.name().equals(value)
          || hostAttribute(candidate).map(a -> a.getValue().equals(self.name())).orElse(false);
    }
    return false;
  }

  private static Optional<Map.Entry<String, String>> hostAttribute(InstanceMeta i) {
    return i.attributes().entrySet().stream()
        .filter(a -> a.getKey().equalsIgnoreCase("pod") || a.getKey().equalsIgnoreCase("hostname"))
        .findFirst();
  }

  /** Relations from {@code self}, both directions, each new one followed until depth runs out. */
  private static void walk(Graph graph, RelatedService self, int depth, Set<ServiceRelation> out) {
    if (depth < 1) {
      return;
    }
    for (RelatedService lower : graph.lowers(self)) {
      if (out.add(new ServiceRelation(self, lower))) {
        walk(graph, lower, depth - 1, out);
      }
    }
    for (RelatedService upper : graph.uppers(self)) {
      if (out.add(new ServiceRelation(upper, self))) {
        walk(graph, upper, depth - 1, out);
      }
    }
  }

  /** Every (service, layer) the metadata knows, linked by the rules. */
  private Graph graph() {
    Map<String, List<RelatedService>> byLayer = new HashMap<>();
    Graph graph = new Graph();
    for (ServiceMeta s : storage.metadata().services()) {
      for (String layer : s.layers()) {
        RelatedService node = new RelatedService(s.id(), s.name(), layer, s.normal());
        graph.nodes.put(key(s.id(), layer), node);
        byLayer.computeIfAbsent(layer, k -> new ArrayList<>()).add(node);
      }
    }
    for (Link link : HierarchyRules.LINKS) {
      List<RelatedService> uppers = byLayer.getOrDefault(link.upperLayer(), List.of());
      List<RelatedService> lowers = byLayer.getOrDefault(link.lowerLayer(), List.of());
      if (uppers.isEmpty() || lowers.isEmpty()) {
        continue;
      }
      Map<String, List<RelatedService>> lowerByKey = new HashMap<>();
      for (RelatedService l : lowers) {
        String k = link.rule().lowerKey(l.name());
        if (k != null) {
          lowerByKey.computeIfAbsent(k, x -> new ArrayList<>()).add(l);
        }
      }
      for (RelatedService u : uppers) {
        String k = link.rule().upperKey(u.name());
        for (RelatedService l : k == null ? List.<RelatedService>of() : lowerByKey.getOrDefault(k, List.of())) {
          graph.link(u, l);
        }
      }
    }
    return graph;
  }

  private static String key(String serviceId, String layer) {
    return serviceId + "|" + layer;
  }

  private static final class Graph {
    final Map<String, RelatedService> nodes = new HashMap<>();
    final Map<RelatedService, Set<RelatedService>> lower = new HashMap<>();
    final Map<RelatedService, Set<RelatedService>> upper = new HashMap<>();

    RelatedService node(String serviceId, String layer) {
      return serviceId == null || layer == null ? null : nodes.get(key(serviceId, layer));
    }

    void link(RelatedService u, RelatedService l) {
      lower.computeIfAbsent(u, k -> new LinkedHashSet<>()).add(l);
      upper.computeIfAbsent(l, k -> new LinkedHashSet<>()).add(u);
    }

    Set<RelatedService> lowers(RelatedService s) {
      return lower.getOrDefault(s, Set.of());
    }

    Set<RelatedService> uppers(RelatedService s) {
      return upper.getOrDefault(s, Set.of());
    }

    /** True if the relation's lower service is also below another lower service of its upper one. */
    boolean impliedByLongerPath(ServiceRelation r) {
      Set<RelatedService> siblings = lowers(r.upperService());
      return siblings.size() > 1 && reachable(siblings, r.lowerService(), MAX_DEPTH);
    }

    private boolean reachable(Set<RelatedService> from, RelatedService target, int depth) {
      if (depth < 1) {
        return false;
      }
      for (RelatedService s : from) {
        if (!s.equals(target) && (lowers(s).contains(target) || reachable(lowers(s), target, depth - 1))) {
          return true;
        }
      }
      return false;
    }
  }
}
