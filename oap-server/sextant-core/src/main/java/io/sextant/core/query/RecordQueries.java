package io.sextant.core.query;

import io.sextant.api.model.Scope;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import io.sextant.core.metric.MetricDefinition;
import io.sextant.core.query.mqe.MqeEntity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Sampled records (SkyWalking's record-kind metrics, e.g. {@code top_n_database_statement}) for
 * {@code readRecords}, read from the record store. A kind readable here is written with kind = the
 * record name, entity = its owner's id and the tags {@code name}, {@code value} and {@code refId};
 * {@code kinds} maps each such name to its owner's scope. Sextant collects none yet, so today every
 * name is refused with the reason rather than answered with an empty list that looks like no data.
 */
public final class RecordQueries {
  /** Records read from the store to rank by value; past it the newest are ranked. */
  static final int MAX_RANKED = 10_000;
  static final int MAX_TOP_N = 1_000;
  private final StorageComponent storage;
  private final Map<String, Scope> kinds;

  public RecordQueries(StorageComponent storage, Map<String, Scope> kinds) {
    this.storage = storage;
    this.kinds = Map.copyOf(kinds);
  }

  /** The record names Sextant keeps: none until a receiver writes sampled records. */
  public static RecordQueries over(StorageComponent storage) {
    return new RecordQueries(storage, Map.of());
  }

  /**
   * The {@code topN} records of {@code name} owned by {@code owner} in {@code [startMillis,
   * endMillis]}, ordered by value.
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
      out.add(new SampledRecord(tag(r, "name"), r.id(), tag(r, "value"), tag(r, "refId")));
    }
    Comparator<SampledRecord> byValue = Comparator.comparingLong(RecordQueries::value);
    return out.stream().sorted(ascending ? byValue : byValue.reversed()).limit(topN).toList();
  }

  private static long value(SampledRecord r) {
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
