package io.sextant.core.flush;

import io.sextant.api.storage.Edge;
import io.sextant.api.storage.EndpointMeta;
import io.sextant.api.storage.InstanceMeta;
import io.sextant.api.storage.PartialRow;
import io.sextant.api.storage.ServiceMeta;
import io.sextant.api.time.Step;
import io.sextant.core.topology.EntitySink;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What waits for storage: the latest version of each partial row, and the metadata and edges not
 * yet written. A newer version of a row replaces the waiting one, so while storage is slow or away
 * this holds at most one version of each open row. Past {@code maxBytes} of rows, counting the
 * batch being written, the oldest waiting rows are evicted: dropped and counted, or with {@code
 * keepEvicted} handed out by {@link #takeEvicted} (for the spool's overflow). Past {@code
 * maxMetadata} entries new metadata is dropped, counted. Not thread-safe: the flusher guards it.
 */
final class PendingWrites implements EntitySink {
  private final long maxBytes;
  private final int maxMetadata;
  /** Null: evicted rows are dropped. */
  private final List<PartialRow> evicted;
  private Batch waiting = new Batch();
  /** Batches taken and not yet reported written or failed (at most one with the flusher's lock). */
  private final List<Batch> inFlight = new ArrayList<>(1);
  private long inFlightBytes;
  private long droppedRows;
  private long droppedMetadata;

  PendingWrites(long maxBytes, int maxMetadata) {
    this(maxBytes, maxMetadata, false);
  }

  PendingWrites(long maxBytes, int maxMetadata, boolean keepEvicted) {
    this.maxBytes = maxBytes;
    this.maxMetadata = maxMetadata;
    this.evicted = keepEvicted ? new ArrayList<>() : null;
  }

  /**
   * Everything waiting, to be written together; afterwards nothing waits. Its rows count against
   * the bound until {@link #written} or {@link #restore} says how the write went.
   */
  Batch take() {
    Batch b = waiting;
    waiting = new Batch();
    inFlightBytes += b.rowBytes;
    inFlight.add(b);
    return b;
  }

  /** The batch is written and visible to queries: reads find its rows in storage from now on. */
  void written(Batch b) {
    inFlightBytes -= b.rowBytes;
    inFlight.remove(b);
  }

  /**
   * Puts a batch that could not be written back, in front of what arrived since: versions that
   * arrived meanwhile are newer and win.
   */
  void restore(Batch failed) {
    restore(failed, true);
  }

  /**
   * As {@link #restore(Batch)}, but with {@code rows} false only the batch's metadata and edges
   * wait again: its rows have gone elsewhere (the overflow, in front of newer versions there).
   */
  void restore(Batch failed, boolean rows) {
    inFlightBytes -= failed.rowBytes;
    inFlight.remove(failed);
    if (!rows) {
      failed.rows.clear();
      failed.idsByEntity.clear();
      failed.rowBytes = 0;
    }
    Batch newer = waiting;
    waiting = failed;
    newer.rows.values().forEach(this::row);
    newer.services.values().forEach(this::service);
    newer.instances.values().forEach(this::instance);
    newer.endpoints.values().forEach(this::endpoint);
    newer.edges.forEach((minute, edges) -> edges.forEach(e -> edge(minute, e)));
  }

  /** Adds a row, replacing its older version. */
  void row(PartialRow row) {
    PartialRow older = waiting.rows.remove(row.id()); // the newest versions go last in eviction order
    if (older != null) {
      waiting.rowBytes -= older.weightBytes();
    }
    waiting.rows.put(row.id(), row);
    waiting.index(row);
    waiting.rowBytes += row.weightBytes();
    var oldest = waiting.rows.values().iterator();
    while (waiting.rowBytes + inFlightBytes > maxBytes && oldest.hasNext()) {
      PartialRow dropped = oldest.next();
      waiting.rowBytes -= dropped.weightBytes();
      oldest.remove();
      waiting.unindex(dropped);
      if (evicted != null) {
        evicted.add(dropped);
      } else {
        droppedRows++;
      }
    }
  }

  /** Rows evicted since the last call, oldest first (empty unless {@code keepEvicted}). */
  List<PartialRow> takeEvicted() {
    if (evicted == null || evicted.isEmpty()) {
      return List.of();
    }
    List<PartialRow> out = List.copyOf(evicted);
    evicted.clear();
    return out;
  }

  /**
   * Hands {@code out} the rows of {@code group} and {@code step} with buckets in {@code [start,
   * end]}, of {@code entityIds} (null: all), waiting ones first, then those being written, newest
   * batch first: the order in which versions of a row age. An entity read looks up its rows; only
   * a read of all entities scans.
   */
  void rows(String group, Collection<String> entityIds, Step step, long start, long end,
      Consumer<PartialRow> out) {
    Consumer<PartialRow> matching = r -> {
      if (r.step() == step && r.bucket() >= start && r.bucket() <= end && r.group().equals(group)) {
        out.accept(r);
      }
    };
    waiting.rows(entityIds, matching);
    for (int i = inFlight.size() - 1; i >= 0; i--) {
      inFlight.get(i).rows(entityIds, matching);
    }
  }

  @Override
  public void service(ServiceMeta m) {
    String key = m.id() + "|" + m.layers();
    if (room(waiting.services.containsKey(key))) {
      waiting.services.merge(key, m, (a, b) -> new ServiceMeta(a.id(), a.name(), a.normal(), a.layers(),
          Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen())));
    }
  }

  @Override
  public void instance(InstanceMeta m) {
    if (room(waiting.instances.containsKey(m.id()))) {
      waiting.instances.merge(m.id(), m, (a, b) -> new InstanceMeta(a.id(), a.serviceId(), a.name(), a.layer(),
          b.attributes(), Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen())));
    }
  }

  @Override
  public void endpoint(EndpointMeta m) {
    if (room(waiting.endpoints.containsKey(m.id()))) {
      waiting.endpoints.merge(m.id(), m, (a, b) -> new EndpointMeta(a.id(), a.serviceId(), a.name(),
          Math.min(a.firstSeen(), b.firstSeen()), Math.max(a.lastSeen(), b.lastSeen())));
    }
  }

  @Override
  public void edge(long minute, Edge e) {
    Set<Edge> edges = waiting.edges.get(minute);
    if (room(edges != null && edges.contains(e))) {
      waiting.edges.computeIfAbsent(minute, m -> new HashSet<>()).add(e);
    }
  }

  private boolean room(boolean present) {
    if (present || waiting.metadataCount < maxMetadata) {
      waiting.metadataCount += present ? 0 : 1;
      return true;
    }
    droppedMetadata++;
    return false;
  }

  int rowCount() {
    return waiting.rows.size();
  }

  /** Bytes of rows waiting and being written. */
  long rowBytes() {
    return waiting.rowBytes + inFlightBytes;
  }

  long droppedRows() {
    return droppedRows;
  }

  long droppedMetadata() {
    return droppedMetadata;
  }

  /** A set of writes taken together. */
  static final class Batch {
    final LinkedHashMap<String, PartialRow> rows = new LinkedHashMap<>();
    final Map<String, ServiceMeta> services = new LinkedHashMap<>();
    final Map<String, InstanceMeta> instances = new LinkedHashMap<>();
    final Map<String, EndpointMeta> endpoints = new LinkedHashMap<>();
    final Map<Long, Set<Edge>> edges = new HashMap<>();
    /** Row ids by entity, so a query of a few entities does not scan every waiting row. */
    private final Map<String, Set<String>> idsByEntity = new HashMap<>();
    private int metadataCount;
    private long rowBytes;

    private void index(PartialRow row) {
      idsByEntity.computeIfAbsent(row.entityId(), e -> new HashSet<>(4)).add(row.id());
    }

    private void unindex(PartialRow row) {
      Set<String> ids = idsByEntity.get(row.entityId());
      if (ids != null && ids.remove(row.id()) && ids.isEmpty()) {
        idsByEntity.remove(row.entityId());
      }
    }

    private void rows(Collection<String> entityIds, Consumer<PartialRow> out) {
      if (entityIds == null) {
        rows.values().forEach(out);
        return;
      }
      for (String entityId : entityIds) {
        for (String id : idsByEntity.getOrDefault(entityId, Set.of())) {
          out.accept(rows.get(id));
        }
      }
    }

    boolean isEmpty() {
      return rows.isEmpty() && metadataCount == 0;
    }

    List<PartialRow> rowList() {
      return List.copyOf(rows.values());
    }

    long rowBytes() {
      return rowBytes;
    }
  }
}
