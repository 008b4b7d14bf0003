package io.sextant.core.query;

import io.sextant.api.ebpf.SampledTraceReason;
import io.sextant.api.model.Scope;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.SampledRecordTags;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import io.sextant.api.time.Step;
import io.sextant.api.time.TimeBuckets;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.mqe.MqeEntity;
import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Sampled records (SkyWalking's record-kind metrics, e.g. {@code sampled_slow_trace_record}) for
 * {@code readRecords} and MQE's {@code top_n}, read from the record store. A kind readable here is
 * written with kind = the record name, entity = its owner's id and the tags of {@link
 * SampledRecordTags}; {@code kinds} maps each such name to its owner's scope. Names Sextant does not
 * keep are refused with the reason rather than answered with an empty list that looks like no data.
 */
public final class RecordQueries {
  /** Records read from the store to rank by value; past it the newest are ranked. */
  static final int MAX_RANKED = 10_000;
  static final int MAX_TOP_N = 1_000;
  private final StorageComponent storage;
  private final Map<String, Scope> kinds;
  private final TimeBuckets time;

  public RecordQueries(StorageComponent storage, Map<String, Scope> kinds) {
    this(storage, kinds, ZoneOffset.UTC);
  }

  /** {@code zone} is the one time buckets are read in (an MQE window is a list of buckets). */
  public RecordQueries(StorageComponent storage, Map<String, Scope> kinds, ZoneId zone) {
    this.storage = storage;
    this.kinds = Map.copyOf(kinds);
    this.time = new TimeBuckets(zone, Clock.systemUTC());
  }

  /** The record names Sextant keeps: SkyWalking Rover's sampled HTTP requests, owned by process relations. */
  public static RecordQueries over(StorageComponent storage, ZoneId zone) {
    Map<String, Scope> kinds = new LinkedHashMap<>();
    for (SampledTraceReason reason : SampledTraceReason.values()) {
      kinds.put(reason.recordName(), Scope.PROCESS_RELATION);
    }
    return new RecordQueries(storage, kinds, zone);
  }

  /** As {@link #over(StorageComponent, ZoneId)}, buckets read in UTC. */
  public static RecordQueries over(StorageComponent storage) {
    return over(storage, ZoneOffset.UTC);
  }

  /** Whether {@code name} is a record Sextant keeps. */
  public boolean keeps(String name) {
    return kinds.containsKey(name);
  }

  /**
   * The {@code topN} records of {@code name} owned by {@code owner} in {@code [startMillis,
   * endMillis]}, ordered by value. As SkyWalking's, a record's id is its {@code refId}, and both
   * are empty when it has none.
   */
  public List<SampledRecord> top(String name, MqeEntity owner, long startMillis, long endMillis, int topN,
      boolean ascending) {
    Scope scope = kinds.get(name);
    if (scope == null) {
      throw new IllegalArgumentException("record '" + name + "' is not one Sextant has: "
          + (kinds.isEmpty() ? "Sextant keeps no sampled records yet" : "it keeps " + new TreeSet<>(kinds.keySet())));
    }
    if (topN < 1 || topN > MAX_TOP_N) {
      throw new IllegalArgumentException("topN must be between 1 and " + MAX_TOP_N + ", was " + topN);
    }
    String ownerId = MetricQueries.entityId(new MetricDefinition(name, null, scope, null, null), owner);
    List<SampledRecord> out = new ArrayList<>();
    for (StoredRecord r : storage.records().read(
        new RecordQuery(name, List.of(ownerId), startMillis, endMillis, List.of(), MAX_RANKED))) {
      String refId = tag(r, SampledRecordTags.REF_ID);
      String ref = refId == null ? "" : refId;
      out.add(new SampledRecord(tag(r, SampledRecordTags.NAME), ref, tag(r, SampledRecordTags.VALUE), ref));
    }
    Comparator<SampledRecord> byValue = Comparator.comparingLong(RecordQueries::value);
    return out.stream().sorted(ascending ? byValue : byValue.reversed()).limit(topN).toList();
  }

  /** As above over the time of an MQE window: the first instant of its first bucket to the last of its last. */
  public List<SampledRecord> top(String name, MqeEntity owner, List<Long> buckets, Step step, int topN,
      boolean ascending) {
    long start = buckets.isEmpty() ? 0 : time.startMillis(buckets.get(0), step);
    long end = buckets.isEmpty() ? -1
        : time.startMillis(TimeBuckets.plus(buckets.get(buckets.size() - 1), step, 1), step) - 1;
    return top(name, owner, start, end, topN, ascending);
  }

  static long value(SampledRecord r) {
    try {
      return r.value() == null ? 0 : Long.parseLong(r.value());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String tag(StoredRecord r, String key) {
    String prefix = key + "=";
    for (String t : r.tags()) {
      if (t.startsWith(prefix)) {
        return t.substring(prefix.length());
      }
    }
    return null;
  }
}
