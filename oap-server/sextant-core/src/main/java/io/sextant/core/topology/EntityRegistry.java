package io.sextant.core.topology;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Derives metadata (services, instances, endpoints with the minute they were seen; which ones
 * {@link ListingRule} decides) and topology edges from the accumulators the flusher writes, so the
 * hot path does no extra work for them. Each entity and edge is queued at most once per minute.
 * Not thread-safe: the flusher's collector calls it.
 */
public final class EntityRegistry {
  private final int maxSeen;
  private final Map<String, Long> metadataSeen = new HashMap<>();
  private final Map<Edge, Long> edgesSeen = new HashMap<>();

  /** {@code maxSeen} bounds each of the two "seen this minute" caches. */
  public EntityRegistry(int maxSeen) {
    this.maxSeen = maxSeen;
  }

  /** Queues into {@code out} the metadata and edges a snapshot shows, once per entity and minute. */
  public void describe(Snapshot s, EntitySink out) {
    EntityRef e = s.entity();
    long minute = s.minuteBucket();
    if (e.scope().isProcess()) {
      describeProcess(s, out);
      return;
    }
    String layer = e.layer().name();
    // Which sides are listed is decided in one place; edges are drawn for every relation regardless.
    boolean sourceSide = ListingRule.listsSource(s);
    boolean destSide = ListingRule.listsDest(s);
    if (sourceSide) {
      service(out, e.serviceId(), e.serviceName(), layer, minute);
    }
    Scope edgeScope = switch (e.scope()) {
      case SERVICE -> null;
      case SERVICE_INSTANCE -> {
        if (sourceSide) {
          instance(out, e.childId(), e.serviceId(), e.childName(), layer, e.attributes(), minute);
        }
        yield null;
      }
      case ENDPOINT -> {
        // Keyed apart from instances: an endpoint and an instance of one name share an id.
        if (sourceSide && fresh("endpoint|" + e.childId(), minute)) {
          out.endpoint(new EndpointMeta(e.childId(), e.serviceId(), e.childName(), minute, minute));
        }
        yield null;
      }
      case SERVICE_RELATION -> {
        if (destSide) {
          service(out, e.destServiceId(), e.destServiceName(), layer, minute);
        }
        yield Scope.SERVICE;
      }
      case SERVICE_INSTANCE_RELATION -> {
        if (sourceSide) {
          instance(out, e.childId(), e.serviceId(), e.childName(), layer, e.attributes(), minute);
        }
        if (destSide) {
          service(out, e.destServiceId(), e.destServiceName(), layer, minute);
          instance(out, e.destChildId(), e.destServiceId(), e.destChildName(), layer, e.destAttributes(), minute);
        }
        yield Scope.SERVICE_INSTANCE;
      }
      case PROCESS, PROCESS_RELATION -> null; // handled above
    };
    if (edgeScope == Scope.SERVICE) {
      addEdges(out, edgeScope, e.serviceId(), e.destServiceId(), s, minute);
    } else if (edgeScope == Scope.SERVICE_INSTANCE) {
      addEdges(out, edgeScope, e.childId(), e.destChildId(), s, minute);
    }
  }

  /**
   * Process relations are edges between processes, one per reporting side, with the connection's
   * component. No metadata: Rover reports its processes, and the eBPF receiver writes the virtual
   * ones it names, because a process is not derived from metrics.
   */
  private void describeProcess(Snapshot s, EntitySink out) {
    EntityRef e = s.entity();
    if (!e.scope().isRelation()) {
      return;
    }
    String component = e.attributes().getOrDefault(EntityRef.COMPONENT, Components.UNKNOWN);
    for (DetectPoint dp : DetectPoint.values()) {
      if ((s.detectPoints() & (1 << dp.ordinal())) != 0) {
        addEdge(out, new Edge(Scope.PROCESS, e.childId(), e.destChildId(), dp, component), s.minuteBucket());
      }
    }
  }

  private void service(EntitySink out, String id, String name, String layer, long minute) {
    if (fresh(id + "|" + layer, minute)) {
      out.service(new ServiceMeta(id, name, true, Set.of(layer), minute, minute));
    }
  }

  private void instance(EntitySink out, String id, String serviceId, String name, String layer,
      Map<String, String> attributes, long minute) {
    if (fresh(id, minute)) {
      out.instance(new InstanceMeta(id, serviceId, name, layer, attributes, minute, minute));
    }
  }

  private void addEdges(EntitySink out, Scope scope, String source, String dest, Snapshot s, long minute) {
    String component = component(s);
    for (DetectPoint dp : DetectPoint.values()) {
      int bit = 1 << dp.ordinal();
      if ((s.detectPoints() & bit) != 0) {
        addEdge(out, new Edge(scope, source, dest, dp, component), minute);
        // As SkyWalking's service relation dispatch: a side that reported (m)TLS also carries the
        // tls/mtls component, so the call reads e.g. [http, mtls]; instance calls carry none.
        if (scope == Scope.SERVICE && (s.mtlsDetectPoints() & bit) != 0) {
          addEdge(out, new Edge(scope, source, dest, dp, Components.MTLS), minute);
        }
        if (scope == Scope.SERVICE && (s.tlsDetectPoints() & bit) != 0) {
          addEdge(out, new Edge(scope, source, dest, dp, Components.TLS), minute);
        }
      }
    }
  }

  private void addEdge(EntitySink out, Edge edge, long minute) {
    Long seen = edgesSeen.get(edge);
    if (seen == null || seen != minute) {
      trim(edgesSeen);
      edgesSeen.put(edge, minute);
      out.edge(minute, edge);
    }
  }

  /**
   * The protocol an edge carries: what its calls or kernel records said, tcp for flows, unknown for
   * proxy samples.
   */
  private static String component(Snapshot s) {
    return switch (s.group().source()) {
      case FLOW -> CallProtocol.TCP.componentName();
      case SAMPLE, PROCESS_SAMPLE -> Components.UNKNOWN; // proxy statistics say nothing of the protocol
      case CALL -> protocol(s, CallProtocol.HTTP);
      case KERNEL -> protocol(s, CallProtocol.TCP);
    };
  }

  /** The first protocol the accumulator's records carried, or {@code otherwise}. */
  private static String protocol(Snapshot s, CallProtocol otherwise) {
    for (CallProtocol p : CallProtocol.values()) {
      if ((s.protocols() & (1 << p.ordinal())) != 0) {
        return p.componentName();
      }
    }
    return otherwise.componentName();
  }

  /** True the first time an entity is described in a minute; later snapshots add nothing new. */
  private boolean fresh(String key, long minute) {
    Long seen = metadataSeen.get(key);
    if (seen != null && seen == minute) {
      return false;
    }
    trim(metadataSeen);
    metadataSeen.put(key, minute);
    return true;
  }

  private <K> void trim(Map<K, Long> cache) {
    if (cache.size() >= maxSeen) {
      cache.clear(); // forgetting only causes a harmless rewrite
    }
  }
}
