package io.sextant.core.query;

import io.sextant.api.id.EntityIds;
import io.sextant.api.log.LogEntry;
import io.sextant.api.log.LogRecords;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Logs as {@code queryLogs} asks for them, with SkyWalking 10.4's rules: ids that are null, empty or
 * {@code "0"} filter nothing; every tag must match (key and value trimmed); every keyword must occur
 * in the content and no excluded keyword may (case-insensitive substring, approximating
 * Elasticsearch's {@code matchPhrase}; empty keywords are dropped); newest first unless ascending;
 * pages of {@code pageSize} from {@code pageNum} 1.
 *
 * <p>The store filters on service, instance, endpoint and tags with a value; keywords and tags
 * without a value are matched here, over at most {@value #MAX_MATCHES} logs of the window (the
 * newest), as Elasticsearch answers at most that many hits by default. Pages reaching beyond that
 * are refused. Ascending order reads the same newest {@value #MAX_MATCHES} and turns them round, so
 * in a window holding more logs it starts at the oldest of those.
 */
public final class LogQueries {
  public static final int MAX_MATCHES = EventQueries.MAX_MATCHES;
  /** At most this many tag values are answered, as SkyWalking's {@code autocompleteTagValuesQueryMaxSize}. */
  public static final int MAX_TAG_VALUES = 100;

  /**
   * The filters of one query; ids null, empty or {@code "0"} filter nothing, as do null lists.
   * {@code startMillis} and {@code endMillis} are inclusive. A tag with a null or empty value
   * matches any log carrying the key.
   */
  public record Condition(String serviceId, String instanceId, String endpointId, long startMillis,
      long endMillis, List<LogEntry.Tag> tags, List<String> keywords, List<String> excludingKeywords,
      boolean ascending, int pageNum, int pageSize) {}

  private static final Comparator<StoredRecord> NEWEST_FIRST =
      Comparator.comparingLong(StoredRecord::timeMillis).reversed();

  private final StorageComponent storage;

  public LogQueries(StorageComponent storage) {
    this.storage = storage;
  }

  /** One page of the matching logs; bad conditions throw with the reason. */
  public List<LogEntry> logs(Condition c) {
    long from = RecordPages.first(c.pageNum(), c.pageSize(), MAX_MATCHES);
    if (c.startMillis() > c.endMillis()) {
      throw new IllegalArgumentException("the duration's start must not be after its end");
    }
    if (c.pageSize() == 0) {
      return List.of();
    }
    String service = given(c.serviceId());
    String instance = given(c.instanceId());
    String endpoint = given(c.endpointId());
    if (service == null && (instance != null || endpoint != null)) {
      // An instance or endpoint id names its service: the read still hits one entity.
      service = EntityIds.parseChildId(instance != null ? instance : endpoint).serviceId();
    }
    List<String> recordTags = new ArrayList<>();
    if (instance != null) {
      recordTags.add(StoredRecord.tag(LogRecords.INSTANCE, instance));
    }
    if (endpoint != null) {
      recordTags.add(StoredRecord.tag(LogRecords.ENDPOINT, endpoint));
    }
    Set<String> keysOnly = new LinkedHashSet<>();
    for (LogEntry.Tag t : c.tags() == null ? List.<LogEntry.Tag>of() : c.tags()) {
      String key = t.key() == null ? "" : t.key().trim();
      String value = t.value() == null ? "" : t.value().trim();
      if (key.isEmpty()) {
        throw new IllegalArgumentException("a log tag needs a key");
      }
      if (value.isEmpty()) {
        keysOnly.add(key);
      } else {
        recordTags.add(LogRecords.logTag(key, value));
      }
    }
    List<String> keywords = lowered(c.keywords());
    List<String> excluded = lowered(c.excludingKeywords());
    boolean inProcess = !keysOnly.isEmpty() || !keywords.isEmpty() || !excluded.isEmpty();
    int limit = inProcess || c.ascending() ? MAX_MATCHES : (int) (from + c.pageSize());
    List<StoredRecord> records = new ArrayList<>(storage.records().read(new RecordQuery(LogRecords.KIND,
        service == null ? null : List.of(service), c.startMillis(), c.endMillis(), recordTags, limit)));
    records.sort(NEWEST_FIRST); // stable: keeps the store's order among logs of one millisecond
    if (c.ascending()) {
      Collections.reverse(records);
    }
    List<LogEntry> page = new ArrayList<>();
    long skipped = 0;
    for (StoredRecord r : records) {
      LogEntry log = inProcess || skipped >= from ? LogRecords.fromRecord(r) : null;
      if (inProcess && !matches(log, keysOnly, keywords, excluded)) {
        continue;
      }
      if (skipped++ < from) {
        continue;
      }
      page.add(log);
      if (page.size() == c.pageSize()) {
        break;
      }
    }
    return List.copyOf(page);
  }

  /**
   * The log tag keys clients can complete, {@link LogRecords#SEARCHABLE_TAGS}, when the window holds
   * any log (none otherwise). The fixed list costs one record read; SkyWalking lists the keys it
   * saw in the window, and every Sextant log carries one of these.
   */
  public List<String> tagKeys(long startMillis, long endMillis) {
    if (startMillis > endMillis) {
      throw new IllegalArgumentException("the duration's start must not be after its end");
    }
    boolean any = !storage.records()
        .read(new RecordQuery(LogRecords.KIND, null, startMillis, endMillis, List.of(), 1)).isEmpty();
    return any ? LogRecords.SEARCHABLE_TAGS : List.of();
  }

  /**
   * The distinct values of log tag {@code key} among the newest {@value #MAX_MATCHES} logs of the
   * window, sorted, at most {@value #MAX_TAG_VALUES}. They are the values a tag filter matches, so
   * a {@code response.flag} of several flags gives each flag and the joined value.
   */
  public List<String> tagValues(String key, long startMillis, long endMillis) {
    if (startMillis > endMillis) {
      throw new IllegalArgumentException("the duration's start must not be after its end");
    }
    String k = key == null ? "" : key.trim();
    if (k.isEmpty()) {
      return List.of();
    }
    String prefix = LogRecords.logTag(k, "");
    Set<String> values = new LinkedHashSet<>();
    for (StoredRecord r : storage.records()
        .read(new RecordQuery(LogRecords.KIND, null, startMillis, endMillis, List.of(), MAX_MATCHES))) {
      for (String tag : r.tags()) {
        if (tag.startsWith(prefix) && tag.length() > prefix.length()) {
          values.add(tag.substring(prefix.length()));
          if (values.size() == MAX_TAG_VALUES) {
            return values.stream().sorted().toList();
          }
        }
      }
    }
    return values.stream().sorted().toList();
  }

  private static boolean matches(LogEntry log, Set<String> keysOnly, List<String> keywords,
      List<String> excluded) {
    for (String key : keysOnly) {
      if (log.tags().stream().noneMatch(t -> t.key().equals(key))) {
        return false;
      }
    }
    if (keywords.isEmpty() && excluded.isEmpty()) {
      return true;
    }
    String content = log.content().toLowerCase(Locale.ROOT);
    return keywords.stream().allMatch(content::contains) && excluded.stream().noneMatch(content::contains);
  }

  private static List<String> lowered(List<String> keywords) {
    if (keywords == null) {
      return List.of();
    }
    return keywords.stream().filter(k -> k != null && !k.isEmpty()).map(k -> k.toLowerCase(Locale.ROOT))
        .toList();
  }

  /** The id, or null when it filters nothing (null, empty or SkyWalking's "0" for all). */
  private static String given(String id) {
    return id == null || id.isBlank() || id.equals("0") ? null : id.trim();
  }
}
