package io.sextant.core.query;

import io.sextant.api.model.DetectPoint;
import io.sextant.api.storage.Edge;
import io.sextant.core.topology.Components;
import java.util.HashMap;
import java.util.Map;

/**
 * A service node's {@code type}, decided as SkyWalking's topology builder decides it: the server
 * side's component of calls into the node, the highest priority one when there are several (so
 * {@code [http, mtls]} reads http, and a client-side {@code Unknown} from proxy statistics never
 * decides). A conjectural node (not real) with no server side of its own takes the component of
 * calls that name it; a real node seen only by callers has no type.
 */
final class NodeTypes {
  private final Map<String, String> serverSide = new HashMap<>();
  private final Map<String, String> conjectured = new HashMap<>();

  void add(Edge e) {
    if (e.detectPoint() == DetectPoint.SERVER) {
      serverSide.merge(e.destId(), e.component(),
          (had, now) -> Components.priority(now) > Components.priority(had) ? now : had);
      conjectured.put(e.sourceId(), e.component()); // the caller as the callee saw it
    } else {
      conjectured.putIfAbsent(e.destId(), e.component());
    }
  }

  /** The node's type, or null when nothing decides one. */
  String typeOf(String id, boolean real) {
    String type = serverSide.get(id);
    return type != null || real ? type : conjectured.get(id);
  }
}
