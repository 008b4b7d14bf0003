package io.sextant.core.flush;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sextant.api.component.Component;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EdgeScope;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.MetricPartial;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.aggregate.Aggregator;
import io.sextant.core.aggregate.EntityRef;
import io.sextant.core.aggregate.Snapshot;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.metric.MetricGroup;
import io.sextant.core.metric.EncodedState;
import io.sextant.core.metric.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Periodically turns aggregator snapshots into storage writes: metric partials (minute, and hour
 * and day roll-ups of closed minutes), topology edges and metadata. Writes are idempotent (partial
 * ids are deterministic), so a failed batch is simply retried; what waits is bounded.
 */
public final class Flusher implements Component {
  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);
  /** Metadata and edges are rewritten at most once per minute each; this bounds their caches. */
  private static final int MAX_SEEN_CACHE = 500_000;

  private final Aggregator aggregator;
  private final StorageComponent storage;
  private final TimeBuckets buckets;
  private final FlusherConfig config;
  private final String writerId;
  private final AtomicLong sequences = new AtomicLong();
  private final Rollups hours = new Rollups(Step.HOUR, sequences::incrementAndGet);
  private final Rollups days = new Rollups(Step.DAY, sequences::incrementAndGet);
  /**
   * Partials waiting for storage, by id: a newer version of a partial replaces the waiting one, so
   * while storage is slow or away the queue holds at most one version of each open partial.
   */
  private final LinkedHashMap<String, MetricPartial> pending = new LinkedHashMap<>();
  private final Map<String, Long> metadataSeen = new HashMap<>();
  private final Map<Edge, Long> edgesSeen = new HashMap<>();
  private final Counter partialsWritten;
  private final Counter partialsDropped;
  private final Counter failures;
  private final Timer flushTimer;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "sextant-flusher"));
  private volatile boolean closed;
  private long lastRollupWrite;
  private volatile int pendingCount;

  public Flusher(Aggregator aggregator, StorageComponent storage, TimeBuckets buckets,
      FlusherConfig config, String collectorId, MeterRegistry registry) {
    this.aggregator = aggregator;
    this.storage = storage;
    this.buckets = buckets;
    this.config = config;
    // A restarted collector must never overwrite the partials of its previous run.
    this.writerId = collectorId + "@" + Long.toString(System.currentTimeMillis(), 36);
    this.partialsWritten = Counter.builder("sextant_flush_partials_written").register(registry);
    this.partialsDropped = Counter.builder("sextant_flush_partials_dropped").register(registry);
    this.failures = Counter.builder("sextant_flush_failures").register(registry);
    this.flushTimer = Timer.builder("sextant_flush_duration").publishPercentiles(0.5, 0.99).register(registry);
    registry.gauge("sextant_flush_pending_partials", this, f -> f.pendingCount);
  }

  @Override
  public void start() {
    scheduler.scheduleWithFixedDelay(this::flushSafely, config.intervalMillis(), config.intervalMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void flushSafely() {
    try {
      flush(false);
    } catch (RuntimeException e) {
      LOG.error("flush failed", e);
    }
  }

  /** Writes everything accumulated; {@code closeAll} also closes open minutes and roll-ups. */
  public synchronized void flush(boolean closeAll) {
    long started = System.nanoTime();
    long currentMinute = buckets.currentMinuteBucket();
    long closeBefore = TimeBuckets.plus(currentMinute, Step.MINUTE, -config.graceMinutes());
    List<Snapshot> snapshots = aggregator.collect(closeBefore, closeAll);

    List<MetricPartial> partials = new ArrayList<>();
    Map<String, ServiceMeta> services = new LinkedHashMap<>();
    Map<String, InstanceMeta> instances = new LinkedHashMap<>();
    Map<String, EndpointMeta> endpoints = new LinkedHashMap<>();
    Map<Long, List<Edge>> edges = new HashMap<>();
    for (Snapshot s : snapshots) {
      addPartials(partials, s.group(), s.entity(), Step.MINUTE, s.minuteBucket(), s.sequence(), s.states());
      describe(s, services, instances, endpoints, edges);
      hours.update(s);
      days.update(s);
    }
    // Roll-ups are rewritten every rollupIntervalMillis; a bucket is final once every minute
    // that can still close into it has.
    long now = buckets.nowMillis();
    boolean due = closeAll || now - lastRollupWrite >= config.rollupIntervalMillis();
    if (due) {
      lastRollupWrite = now;
    }
    for (Rollups r : List.of(hours, days)) {
      long finalBefore = TimeBuckets.rollup(closeBefore, r.step());
      for (Rollups.Rollup e : r.drain(finalBefore, closeAll, due)) {
        addPartials(partials, e.group(), e.entity(), r.step(), e.bucket(), e.sequence(), EncodedState.of(e.states()));
      }
    }
    writeMetadata(services, instances, endpoints, edges);
    writePartials(partials);
    flushTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
  }

  private void addPartials(List<MetricPartial> out, MetricGroup group, EntityRef entity, Step step,
      long bucket, long sequence, EncodedState[] states) {
    MetricDefinition[] defs = group.definitions();
    for (int i = 0; i < defs.length; i++) {
      EncodedState st = states[i];
      if (st.isEmpty()) {
        continue; // a side filter kept every record of this accumulator out of this metric
      }
      out.add(new MetricPartial(defs[i].name(), entity.id(), step, bucket, writerId, sequence,
          st.counters(), st.sketch()));
    }
  }

  private void describe(Snapshot s, Map<String, ServiceMeta> services, Map<String, InstanceMeta> instances,
      Map<String, EndpointMeta> endpoints, Map<Long, List<Edge>> edges) {
    EntityRef e = s.entity();
    long minute = s.minuteBucket();
    String layer = e.layer().name();
    service(services, e.serviceId(), e.serviceName(), layer, minute);
    switch (e.scope()) {
      case SERVICE_INSTANCE -> instance(instances, e.childId(), e.serviceId(), e.childName(), layer, e.attributes(), minute);
      case ENDPOINT -> {
        if (fresh(e.childId(), minute)) {
          endpoints.put(e.childId(), new EndpointMeta(e.childId(), e.serviceId(), e.childName(), minute, minute));
        }
      }
      case SERVICE_RELATION -> {
        service(services, e.destServiceId(), e.destServiceName(), layer, minute);
        addEdges(edges, EdgeScope.SERVICE, e.serviceId(), e.destServiceId(), s, minute);
      }
      case SERVICE_INSTANCE_RELATION -> {
        service(services, e.destServiceId(), e.destServiceName(), layer, minute);
        instance(instances, e.childId(), e.serviceId(), e.childName(), layer, e.attributes(), minute);
        instance(instances, e.destChildId(), e.destServiceId(), e.destChildName(), layer, e.destAttributes(), minute);
        addEdges(edges, EdgeScope.SERVICE_INSTANCE, e.childId(), e.destChildId(), s, minute);
      }
      case SERVICE -> {}
    }
  }

  private void service(Map<String, ServiceMeta> out, String id, String name, String layer, long minute) {
    if (fresh(id + "|" + layer, minute)) {
      out.put(id + "|" + layer, new ServiceMeta(id, name, true, Set.of(layer), minute, minute));
    }
  }

  private void instance(Map<String, InstanceMeta> out, String id, String serviceId, String name, String layer,
      Map<String, String> attributes, long minute) {
    if (fresh(id, minute)) {
      out.put(id, new InstanceMeta(id, serviceId, name, layer, attributes, minute, minute));
    }
  }

  private void addEdges(Map<Long, List<Edge>> out, EdgeScope scope, String source, String dest, Snapshot s,
      long minute) {
    String component = component(s);
    for (DetectPoint dp : DetectPoint.values()) {
      if ((s.detectPoints() & (1 << dp.ordinal())) != 0) {
        Edge edge = new Edge(scope, source, dest, dp, component);
        Long seen = edgesSeen.get(edge);
        if (seen == null || seen != minute) {
          trim(edgesSeen);
          edgesSeen.put(edge, minute);
          out.computeIfAbsent(minute, m -> new ArrayList<>()).add(edge);
        }
      }
    }
  }

  private static String component(Snapshot s) {
    if (s.group().source() == Source.FLOW) {
      return CallProtocol.TCP.componentName();
    }
    if (s.group().source() == Source.SAMPLE) {
      return "Unknown"; // proxy statistics say nothing of the protocol
    }
    for (CallProtocol p : CallProtocol.values()) {
      if ((s.protocols() & (1 << p.ordinal())) != 0) {
        return p.componentName();
      }
    }
    return CallProtocol.HTTP.componentName();
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

  private static <K> void trim(Map<K, Long> cache) {
    if (cache.size() >= MAX_SEEN_CACHE) {
      cache.clear(); // forgetting only causes a harmless rewrite
    }
  }

  private void writeMetadata(Map<String, ServiceMeta> services, Map<String, InstanceMeta> instances,
      Map<String, EndpointMeta> endpoints, Map<Long, List<Edge>> edges) {
    try {
      if (!services.isEmpty()) {
        storage.metadata().upsertServices(new ArrayList<>(services.values()));
      }
      if (!instances.isEmpty()) {
        storage.metadata().upsertInstances(new ArrayList<>(instances.values()));
      }
      if (!endpoints.isEmpty()) {
        storage.metadata().upsertEndpoints(new ArrayList<>(endpoints.values()));
      }
      edges.forEach((minute, list) -> storage.topology().write(list, minute));
    } catch (RuntimeException e) {
      failures.increment();
      // Forget what we could not write, so the next minute's snapshot writes it again.
      metadataSeen.clear();
      edgesSeen.clear();
      LOG.warn("writing metadata failed: {}", e.toString());
    }
  }

  private void writePartials(List<MetricPartial> partials) {
    for (MetricPartial p : partials) {
      pending.put(p.id(), p);
    }
    var oldest = pending.entrySet().iterator();
    while (pending.size() > config.maxPendingPartials()) {
      oldest.next();
      oldest.remove();
      partialsDropped.increment();
    }
    pendingCount = pending.size();
    if (pending.isEmpty()) {
      return;
    }
    List<MetricPartial> batch = new ArrayList<>(pending.values());
    try {
      storage.metrics().write(batch);
      pending.clear();
      pendingCount = 0;
      partialsWritten.increment(batch.size());
    } catch (RuntimeException e) {
      failures.increment();
      LOG.warn("writing {} partials failed, will retry: {}", batch.size(), e.toString());
    }
  }

  public String writerId() {
    return writerId;
  }

  /** Stops the schedule and writes everything accepted so far, closing every open bucket. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    flush(true);
  }
}
