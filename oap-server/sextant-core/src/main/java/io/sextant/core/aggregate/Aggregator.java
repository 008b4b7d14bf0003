package io.sextant.core.aggregate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.MeshRecord;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.IdCache.ServiceIds;
import io.sextant.core.metric.MetricCatalog;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.MetricState;
import io.sextant.core.metric.Scope;
import io.sextant.core.metric.Source;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hot path: turns records into per-minute accumulators, one per (metric group, entity). Records
 * are dispatched as SkyWalking's mesh dispatcher does: server-side reports feed service, instance
 * and endpoint metrics; any report with a known source feeds service and instance relations.
 *
 * <p>Bounded by {@code maxAccumulators}: past it new entities are refused with {@link
 * Admission#REJECTED_OVERLOADED} (existing ones still accumulate), so memory stays flat under an
 * entity explosion and the client is told to back off.
 */
public final class Aggregator implements RecordSink {
  private final MetricCatalog catalog;
  private final TimeBuckets buckets;
  private final AggregatorLimits limits;
  private final IdCache ids;
  private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();
  private final AtomicInteger openAccumulators = new AtomicInteger();
  private final AtomicLong sequences = new AtomicLong();
  private final Counter acceptedCalls;
  private final Counter acceptedFlows;
  private final Counter rejectedOverloaded;
  private final Counter rejectedTimeRange;
  private volatile Slot lastSlot = new Slot(Long.MIN_VALUE, 0);

  public Aggregator(MetricCatalog catalog, TimeBuckets buckets, AggregatorLimits limits, MeterRegistry registry) {
    this.catalog = catalog;
    this.buckets = buckets;
    this.limits = limits;
    this.ids = new IdCache(limits.maxCachedIds());
    this.acceptedCalls = Counter.builder("sextant_records_accepted").tag("kind", "call").register(registry);
    this.acceptedFlows = Counter.builder("sextant_records_accepted").tag("kind", "flow").register(registry);
    this.rejectedOverloaded =
        Counter.builder("sextant_records_rejected").tag("reason", "overloaded").register(registry);
    this.rejectedTimeRange =
        Counter.builder("sextant_records_rejected").tag("reason", "time_range").register(registry);
    registry.gauge("sextant_aggregator_open_accumulators", openAccumulators);
  }

  @Override
  public Admission offerCall(CallRecord call) {
    Admission admission = offer(call, Source.CALL, call.endpoint());
    if (admission == Admission.ACCEPTED) {
      acceptedCalls.increment();
    }
    return admission;
  }

  @Override
  public Admission offerFlow(FlowRecord flow) {
    Admission admission = offer(flow, Source.FLOW, "");
    if (admission == Admission.ACCEPTED) {
      acceptedFlows.increment();
    }
    return admission;
  }

  private Admission offer(MeshRecord r, Source source, String endpoint) {
    long now = buckets.nowMillis();
    long time = r.startTimeMillis() > 0 ? r.startTimeMillis() : now;
    if (time < now - limits.maxLateMinutes() * 60_000L || time > now + limits.maxFutureMinutes() * 60_000L) {
      rejectedTimeRange.increment();
      return Admission.REJECTED_TIME_RANGE;
    }
    // Up to five new entities per record: refuse it whole rather than count it partly.
    if (openAccumulators.get() > limits.maxAccumulators() - 5) {
      rejectedOverloaded.increment();
      return Admission.REJECTED_OVERLOADED;
    }
    Slot slot = slot(buckets.minuteBucket(time));
    int protocol = r instanceof CallRecord c ? c.protocol().ordinal() : -1;
    ServiceIds dest = ids.service(r.destService());
    String destInstanceId = r.destInstance().isEmpty() ? null : dest.child(r.destInstance());
    if (r.detectPoint() == DetectPoint.SERVER) {
      add(slot, source, Scope.SERVICE, dest.id, r, protocol, dest, null, null);
      if (destInstanceId != null) {
        add(slot, source, Scope.SERVICE_INSTANCE, destInstanceId, r, protocol, dest, destInstanceId, null);
      }
      if (!endpoint.isEmpty()) {
        add(slot, source, Scope.ENDPOINT, dest.child(endpoint), r, protocol, dest, null, endpoint);
      }
    }
    if (!r.sourceService().isEmpty()) {
      ServiceIds src = ids.service(r.sourceService());
      add(slot, source, Scope.SERVICE_RELATION, src.relationTo(dest.id), r, protocol, src, null, null);
      if (destInstanceId != null && !r.sourceInstance().isEmpty()) {
        String srcInstanceId = src.child(r.sourceInstance());
        String relationId = srcInstanceId + "-" + destInstanceId;
        add(slot, source, Scope.SERVICE_INSTANCE_RELATION, relationId, r, protocol, src, srcInstanceId, null);
      }
    }
    return Admission.ACCEPTED;
  }

  private void add(
      Slot slot, Source source, Scope scope, String id, MeshRecord r, int protocol,
      ServiceIds service, String instanceId, String endpoint) {
    MetricGroup group = catalog.group(source, scope);
    if (group == null) {
      return;
    }
    ConcurrentHashMap<String, Accumulator> map = slot.maps[group.index()];
    while (true) {
      Accumulator acc = map.get(id);
      if (acc == null) {
        EntityRef entity = entity(scope, id, r, service, instanceId, endpoint);
        Accumulator created = new Accumulator(entity, sequences.incrementAndGet(), group.newStates());
        acc = map.putIfAbsent(id, created);
        if (acc == null) {
          acc = created;
          openAccumulators.incrementAndGet();
        }
      }
      synchronized (acc) {
        if (!acc.sealed) {
          group.add(acc.states, r);
          acc.detectPoints |= 1 << r.detectPoint().ordinal();
          if (protocol >= 0) {
            acc.protocols |= 1 << protocol;
          }
          acc.dirty = true;
          return;
        }
      }
      // Sealed by a flush that closed this minute: start a new accumulator for the late record.
    }
  }

  private EntityRef entity(
      Scope scope, String id, MeshRecord r, ServiceIds service, String instanceId, String endpoint) {
    return switch (scope) {
      case SERVICE ->
          new EntityRef(scope, id, r.layer(), service.id, service.name, null, null, Map.of(), null, null, null, null, Map.of());
      case SERVICE_INSTANCE ->
          new EntityRef(scope, id, r.layer(), service.id, service.name, instanceId, r.destInstance(),
              r.destInstanceProperties(), null, null, null, null, Map.of());
      case ENDPOINT ->
          new EntityRef(scope, id, r.layer(), service.id, service.name, id, endpoint, Map.of(), null, null, null, null, Map.of());
      case SERVICE_RELATION -> {
        ServiceIds dest = ids.service(r.destService());
        yield new EntityRef(scope, id, r.layer(), service.id, service.name, null, null, Map.of(),
            dest.id, dest.name, null, null, Map.of());
      }
      case SERVICE_INSTANCE_RELATION -> {
        ServiceIds dest = ids.service(r.destService());
        yield new EntityRef(scope, id, r.layer(), service.id, service.name, instanceId, r.sourceInstance(),
            r.sourceInstanceProperties(), dest.id, dest.name, dest.child(r.destInstance()), r.destInstance(),
            r.destInstanceProperties());
      }
    };
  }

  private Slot slot(long minute) {
    Slot s = lastSlot;
    if (s.minute == minute) {
      return s;
    }
    s = slots.computeIfAbsent(minute, m -> new Slot(m, catalog.groups().size()));
    lastSlot = s;
    return s;
  }

  /**
   * Copies what changed since the last call. Minutes older than {@code closeBefore} (or all, when
   * {@code closeAll}) are closed: their accumulators are removed and sealed, and records arriving
   * for them later start new accumulators. Called by one flusher thread at a time.
   */
  public List<Snapshot> collect(long closeBefore, boolean closeAll) {
    List<Snapshot> out = new ArrayList<>();
    long forgetBefore = buckets.minuteBucket(buckets.nowMillis() - (limits.maxLateMinutes() + 5) * 60_000L);
    for (Iterator<Slot> it = slots.values().iterator(); it.hasNext(); ) {
      Slot slot = it.next();
      boolean close = closeAll || slot.minute < closeBefore;
      for (int g = 0; g < slot.maps.length; g++) {
        MetricGroup group = catalog.groups().get(g);
        ConcurrentHashMap<String, Accumulator> map = slot.maps[g];
        for (Accumulator acc : map.values()) {
          if (close) {
            map.remove(acc.entity.id(), acc);
            openAccumulators.decrementAndGet();
          }
          synchronized (acc) {
            if (close) {
              acc.sealed = true;
            }
            if (acc.dirty || close) {
              acc.dirty = false;
              out.add(new Snapshot(group, acc.entity, slot.minute, acc.sequence, copy(acc.states),
                  acc.detectPoints, acc.protocols, close));
            }
          }
        }
      }
      // Writers can no longer reach minutes this old (they are refused as too late).
      if (slot.minute < forgetBefore && slot.isEmpty()) {
        it.remove();
      }
    }
    return out;
  }

  private static MetricState[] copy(MetricState[] states) {
    MetricState[] out = new MetricState[states.length];
    for (int i = 0; i < states.length; i++) {
      out[i] = states[i].copy();
    }
    return out;
  }

  public int openAccumulators() {
    return openAccumulators.get();
  }

  public MetricCatalog catalog() {
    return catalog;
  }

  private static final class Slot {
    final long minute;
    final ConcurrentHashMap<String, Accumulator>[] maps;

    @SuppressWarnings("unchecked")
    Slot(long minute, int groups) {
      this.minute = minute;
      this.maps = new ConcurrentHashMap[groups];
      for (int i = 0; i < groups; i++) {
        maps[i] = new ConcurrentHashMap<>();
      }
    }

    boolean isEmpty() {
      for (ConcurrentHashMap<String, Accumulator> m : maps) {
        if (!m.isEmpty()) {
          return false;
        }
      }
      return true;
    }
  }
}
