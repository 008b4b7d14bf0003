package io.sextant.core.spool;

import io.sextant.api.model.Layer;
import io.sextant.api.model.Scope;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricGroup;
import java.util.HashMap;
import java.util.Map;

/**
 * Snapshots, entities and metric states as the spool keeps them. A metric group is named,
 * not numbered, and its metrics counted, so a spool written by another build with other groups
 * fails to decode (and is counted as corrupt) rather than feeding the wrong metric.
 */
public final class SnapshotCodec {
  private final Map<String, MetricGroup> groups = new HashMap<>();

  public SnapshotCodec(MetricCatalog catalog) {
    catalog.groups().forEach(g -> groups.put(g.name(), g));
  }

  public static void write(Out o, Snapshot s) {
    group(o, s.group());
    entity(o, s.entity());
    o.i64(s.minuteBucket());
    o.i64(s.sequence());
    states(o, s.states());
    o.i32(s.detectPoints());
    o.i32(s.protocols());
    o.i32(s.tlsDetectPoints());
    o.i32(s.mtlsDetectPoints());
    o.bool(s.closed());
  }

  public Snapshot snapshot(In in) {
    MetricGroup group = group(in);
    return new Snapshot(group, entity(in), in.i64(), in.i64(), states(in, group), in.i32(), in.i32(), in.i32(),
        in.i32(), in.bool());
  }

  public static void group(Out o, MetricGroup g) {
    o.str(g.name());
    o.i32(g.definitions().length);
  }

  public MetricGroup group(In in) {
    String name = in.str();
    MetricGroup g = groups.get(name);
    int metrics = in.i32();
    if (g == null || g.definitions().length != metrics) {
      throw new IllegalArgumentException("metric group " + name + " with " + metrics + " metrics is not this build's");
    }
    return g;
  }

  public static void entity(Out o, EntityRef e) {
    o.enumName(e.scope());
    o.str(e.id());
    o.enumName(e.layer());
    o.str(e.serviceId());
    o.str(e.serviceName());
    o.str(e.childId());
    o.str(e.childName());
    o.strings(e.attributes());
    o.str(e.destServiceId());
    o.str(e.destServiceName());
    o.str(e.destChildId());
    o.str(e.destChildName());
    o.strings(e.destAttributes());
  }

  public static EntityRef entity(In in) {
    return new EntityRef(in.enumName(Scope.class), in.str(), in.enumName(Layer.class), in.str(), in.str(), in.str(),
        in.str(), in.strings(), in.str(), in.str(), in.str(), in.str(), in.strings());
  }

  public static void states(Out o, EncodedState[] states) {
    for (EncodedState s : states) {
      o.i64(s.a());
      o.i64(s.b());
      o.i64(s.c());
      o.bytes(s.sketch());
    }
  }

  public static EncodedState[] states(In in, MetricGroup group) {
    EncodedState[] out = new EncodedState[group.definitions().length];
    for (int i = 0; i < out.length; i++) {
      out[i] = new EncodedState(in.i64(), in.i64(), in.i64(), in.bytes());
    }
    return out;
  }
}
