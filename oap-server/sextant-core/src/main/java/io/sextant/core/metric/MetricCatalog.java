package io.sextant.core.metric;

import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The metric table, indexed for the hot path: definitions are grouped by (source, scope) so that
 * one record updates one accumulator per entity, whatever the number of metrics.
 */
public final class MetricCatalog {
  private final Map<String, MetricDefinition> byName = new LinkedHashMap<>();
  private final Map<Source, Map<Scope, MetricGroup>> groups = new EnumMap<>(Source.class);
  private final List<MetricGroup> allGroups = new ArrayList<>();

  /** The catalog of several metric families; a name defined twice is refused. */
  public static MetricCatalog of(List<? extends MetricTable> tables) {
    List<MetricDefinition> all = new ArrayList<>();
    tables.forEach(t -> all.addAll(t.definitions()));
    return new MetricCatalog(all);
  }

  public MetricCatalog(List<MetricDefinition> definitions) {
    Map<Source, Map<Scope, List<MetricDefinition>>> grouped = new EnumMap<>(Source.class);
    for (MetricDefinition d : definitions) {
      if (byName.put(d.name(), d) != null) {
        throw new IllegalArgumentException("metric defined twice: " + d.name());
      }
      grouped
          .computeIfAbsent(d.source(), s -> new EnumMap<>(Scope.class))
          .computeIfAbsent(d.scope(), s -> new ArrayList<>())
          .add(d);
    }
    grouped.forEach(
        (source, byScope) ->
            byScope.forEach(
                (scope, defs) -> {
                  MetricGroup g = new MetricGroup(allGroups.size(), source, scope, defs);
                  allGroups.add(g);
                  groups.computeIfAbsent(source, s -> new EnumMap<>(Scope.class)).put(scope, g);
                }));
  }

  public Optional<MetricDefinition> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * The layer a metric describes, by its family: mesh calls and flows MESH, proxy statistics
   * MESH_DP, Rover's access log K8S_SERVICE; Rover's process meters belong to whichever layer their
   * processes are in, so none.
   */
  public Optional<Layer> layerOf(String name) {
    return find(name).map(d -> switch (d.source()) {
      case CALL, FLOW -> Layer.MESH;
      case SAMPLE -> Layer.MESH_DP;
      case KERNEL -> Layer.K8S_SERVICE;
      case PROCESS_SAMPLE -> null;
    });
  }

  public Collection<MetricDefinition> all() {
    return byName.values();
  }

  /** The group for a source and scope, or null if no metric uses it. */
  public MetricGroup group(Source source, Scope scope) {
    Map<Scope, MetricGroup> byScope = groups.get(source);
    return byScope == null ? null : byScope.get(scope);
  }

  public List<MetricGroup> groups() {
    return allGroups;
  }
}
