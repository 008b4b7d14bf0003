package io.sextant.storage.elasticsearch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.Edge;
import io.sextant.api.storage.TopologyStore;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;

/**
 * One document per edge, hour and writer, listing the minutes of that hour in which the writer
 * saw the edge; a window read is a terms aggregation over the edge keys of the documents with a
 * minute in the window. An hour's read touches one document per edge and collector instead of
 * sixty, which is most of a topology query's cost in Elasticsearch.
 *
 * <p>The minutes are kept here until their hour document is complete and rewritten whole as a
 * minute is added (no read-modify-write). Past {@code maxEntries} the memory is cleared; an
 * entry created afterwards gets a new document (ids carry a sequence), so forgetting costs
 * documents, never minutes. A failed write forgets the entries it changed for the same reason.
 *
 * <p>With a staleness bound, the edges of each window read are kept ({@link TopologyWindows}): a
 * read of a window no older than the bound answers from memory, {@link #follow} searches again
 * the windows read in the last minute, and this collector's own writes are added as it writes.
 */
final class EsTopologyStore implements TopologyStore {
  /**
   * A window nobody read for this long is no longer followed: windows move on every minute, so a
   * dashboard's window of a minute ago is not read again.
   */
  private static final long FOLLOW_IDLE_MILLIS = 60_000;
  /** Distinct edges one query returns at most. */
  private static final int MAX_EDGES = 65_536;
  private static final JsonFactory JSON = new JsonFactory();
  private final RestClient rest;
  private final Bulk bulk;
  private final Indices indices;
  private final String writerId;
  private final int maxEntries;
  /** (edge key, hour) to the minutes written so far and the entry's document sequence. */
  private final Map<String, HourEntry> hours = new HashMap<>();
  private long sequences;
  private long newestHour;
  /** Null unless reads may be stale. */
  private final TopologyWindows windows;
  private final long stalenessMillis;
  private final Counter searchedReads;
  private final Counter cachedReads;

  /** The minutes of one hour as bits (minute of the hour 0..59), and the document's sequence. */
  private static final class HourEntry {
    final long hour;
    final long sequence;
    long minutes;

    HourEntry(long hour, long sequence) {
      this.hour = hour;
      this.sequence = sequence;
    }

    /** Adds a minute; false if it was there already. */
    boolean add(long minuteBucket) {
      long bit = 1L << (minuteBucket % 100);
      boolean added = (minutes & bit) == 0;
      minutes |= bit;
      return added;
    }

    List<Long> minuteBuckets() {
      List<Long> out = new ArrayList<>(Long.bitCount(minutes));
      for (long m = minutes; m != 0; m &= m - 1) {
        out.add(hour * 100 + Long.numberOfTrailingZeros(m));
      }
      return out;
    }
  }

  EsTopologyStore(RestClient rest, Bulk bulk, Indices indices, String writerId, int maxEntries) {
    this(rest, bulk, indices, writerId, maxEntries, 0, 0, new SimpleMeterRegistry());
  }

  /** Keeps up to {@code cacheBytes} of the windows read when {@code stalenessMillis} is above 0. */
  EsTopologyStore(RestClient rest, Bulk bulk, Indices indices, String writerId, int maxEntries, long cacheBytes,
      long stalenessMillis, MeterRegistry registry) {
    this.rest = rest;
    this.bulk = bulk;
    this.indices = indices;
    this.writerId = writerId;
    this.maxEntries = maxEntries;
    this.stalenessMillis = cacheBytes > 0 ? stalenessMillis : 0;
    this.windows = this.stalenessMillis > 0 ? new TopologyWindows(cacheBytes) : null;
    String description = "topology reads: searched, or answered from memory (the follower keeps it fresh)";
    this.searchedReads = Counter.builder("sextant_es_topology_reads").tag("kind", "searched")
        .description(description).register(registry);
    this.cachedReads = Counter.builder("sextant_es_topology_reads").tag("kind", "cached").description(description)
        .register(registry);
  }

  static String key(Edge e) {
    return e.scope() + "|" + e.sourceId() + "|" + e.destId() + "|" + e.detectPoint() + "|" + e.component();
  }

  static Edge edge(String key) {
    String[] p = key.split("\\|", 5);
    return new Edge(Scope.valueOf(p[0]), p[1], p[2], DetectPoint.valueOf(p[3]), p[4]);
  }

  @Override
  public void write(List<Edge> edges, long minuteBucket) {
    write(Map.of(minuteBucket, edges));
  }

  /** One document per changed edge-hour, however many of its minutes the call brings. */
  @Override
  public void write(Map<Long, ? extends Collection<Edge>> edgesByMinute) {
    Map<String, Bulk.Doc> docs = new LinkedHashMap<>();
    Set<String> touched = new HashSet<>();
    synchronized (hours) {
      for (Map.Entry<Long, ? extends Collection<Edge>> minuteEdges : edgesByMinute.entrySet()) {
        long minuteBucket = minuteEdges.getKey();
        long hour = minuteBucket / 100;
        makeRoom(hour, minuteEdges.getValue().size());
        for (Edge e : minuteEdges.getValue()) {
          String key = key(e);
          String entryKey = key + "|" + hour;
          HourEntry entry = hours.computeIfAbsent(entryKey, k -> new HourEntry(hour, ++sequences));
          if (entry.add(minuteBucket)) {
            touched.add(entryKey);
            String id = entryKey + "|" + writerId + "|" + entry.sequence;
            docs.put(id, new Bulk.Doc(indices.edges(minuteBucket), id,
                Map.of("key", key, "scope", e.scope().name(), "minutes", entry.minuteBuckets())));
          }
        }
      }
    }
    try {
      bulk.index("topology", List.copyOf(docs.values()));
    } catch (RuntimeException e) {
      // The minutes are not stored: forget these entries, so that the retry writes new documents.
      synchronized (hours) {
        hours.keySet().removeAll(touched);
      }
      throw e;
    }
    if (windows != null) {
      edgesByMinute.forEach(windows::written);
    }
  }

  /** Forgets hours before the previous one first (late minutes are rare), everything if need be. */
  private void makeRoom(long hour, int adding) {
    newestHour = Math.max(newestHour, hour);
    if (hours.size() + adding <= maxEntries) {
      return;
    }
    long previousHour = TimeBuckets.plus(newestHour, Step.HOUR, -1);
    hours.values().removeIf(e -> e.hour < previousHour);
    if (hours.size() + adding > maxEntries) {
      hours.clear();
    }
  }

  /**
   * Straight over the low-level client, asking only for the bucket keys: the typed client's
   * decoding of a few thousand aggregation buckets was a sixth of a topology query's CPU.
   */
  @Override
  public List<Edge> read(Scope scope, long startMinute, long endMinute) {
    if (windows == null) {
      return search(scope, startMinute, endMinute);
    }
    long now = System.currentTimeMillis();
    TopologyWindows.Window window = new TopologyWindows.Window(scope, startMinute, endMinute);
    TopologyWindows.Edges kept = windows.read(window, now);
    if (kept != null && kept.asOfMillis() >= now - stalenessMillis) {
      cachedReads.increment();
      return kept.list();
    }
    searchedReads.increment();
    List<Edge> found = search(scope, startMinute, endMinute);
    return windows.found(window, found, now, now).list();
  }

  /** One pass of the follower: the windows read in the last minute searched again; answers how many. */
  int follow() {
    if (windows == null) {
      return 0;
    }
    long now = System.currentTimeMillis();
    List<TopologyWindows.Window> followed = windows.followed(now - FOLLOW_IDLE_MILLIS);
    for (TopologyWindows.Window w : followed) {
      windows.found(w, search(w.scope(), w.startMinute(), w.endMinute()), now, 0);
    }
    return followed.size();
  }

  private List<Edge> search(Scope scope, long startMinute, long endMinute) {
    String body = "{\"size\":0,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"scope\":\"" + scope.name()
        + "\"}},{\"range\":{\"minutes\":{\"gte\":" + startMinute + ",\"lte\":" + endMinute + "}}}]}},"
        + "\"aggs\":{\"edges\":{\"terms\":{\"field\":\"key\",\"size\":" + MAX_EDGES + "}}}}";
    Request request = Search.request(indices.edgesPattern(), "aggregations.edges.buckets.key", body);
    List<Edge> out = new ArrayList<>();
    try (InputStream in = Search.perform(rest, request).getEntity().getContent();
        JsonParser p = JSON.createParser(in)) {
      // {"aggregations":{"edges":{"buckets":[{"key":"..."},...]}}}, or {} when nothing matched
      while (p.nextToken() != null) {
        if (p.currentToken() == JsonToken.FIELD_NAME && "key".equals(p.currentName())) {
          p.nextToken();
          out.add(edge(p.getText()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading topology failed: " + Search.reason(e), e);
    }
    return out;
  }
}
