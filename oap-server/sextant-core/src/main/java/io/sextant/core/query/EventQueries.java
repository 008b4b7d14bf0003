package io.sextant.core.query;

import io.sextant.api.event.Event;
import io.sextant.api.event.EventRecords;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Events as {@code queryEvents} asks for them, with SkyWalking 10.1's rules: without a uuid a time
 * range is required; the range keeps events with {@code startTime > after} and {@code endTime <
 * before} (an event not ended yet has end time 0); order by start time, newest first unless
 * ascending; pages of {@code pageSize} from {@code pageNum} 1. The store is asked with one tag per
 * given filter; at most {@value #MAX_MATCHES} matching events are read and sorted, as Elasticsearch
 * answers at most that many hits by default.
 */
public final class EventQueries {
  public static final int MAX_MATCHES = 10_000;

  /**
   * The filters of one query; null or empty strings filter nothing. {@code afterMillis} and {@code
   * beforeMillis} are both given or both null.
   */
  public record Condition(String uuid, String service, String serviceInstance, String endpoint, String name,
      String type, String layer, Long afterMillis, Long beforeMillis, boolean ascending, int pageNum,
      int pageSize) {}

  private static final Comparator<Event> BY_START =
      Comparator.comparingLong(Event::startTime).thenComparing(Event::uuid);

  private final StorageComponent storage;

  public EventQueries(StorageComponent storage) {
    this.storage = storage;
  }

  /** One page of the matching events; bad conditions throw with the reason. */
  public List<Event> events(Condition c) {
    boolean timed = c.afterMillis() != null && c.beforeMillis() != null;
    if (blank(c.uuid()) && !timed) {
      // SkyWalking's own message.
      throw new IllegalArgumentException("time field is required when uuid is absent.");
    }
    long from = RecordPages.first(c.pageNum(), c.pageSize(), MAX_MATCHES);
    if (c.pageSize() == 0) {
      return List.of();
    }
    List<String> tags = new ArrayList<>();
    tag(tags, EventRecords.UUID, c.uuid());
    tag(tags, EventRecords.SERVICE, c.service());
    tag(tags, EventRecords.INSTANCE, c.serviceInstance());
    tag(tags, EventRecords.ENDPOINT, c.endpoint());
    tag(tags, EventRecords.NAME, c.name());
    tag(tags, EventRecords.TYPE, c.type());
    tag(tags, EventRecords.LAYER, c.layer());
    // A record is filed at its event's first known time, the start time when one was reported, so
    // records before the range cannot hold an event starting after it.
    long filedFrom = timed ? c.afterMillis() + 1 : 0;
    List<Event> matches = new ArrayList<>();
    for (StoredRecord r : storage.records()
        .read(new RecordQuery(EventRecords.KIND, null, filedFrom, Long.MAX_VALUE, tags, MAX_MATCHES))) {
      Event e = EventRecords.fromRecord(r);
      if (!timed || (e.startTime() > c.afterMillis() && e.endTime() < c.beforeMillis())) {
        matches.add(e);
      }
    }
    matches.sort(c.ascending() ? BY_START : BY_START.reversed());
    if (from >= matches.size()) {
      return List.of();
    }
    return List.copyOf(matches.subList((int) from, (int) Math.min(matches.size(), from + c.pageSize())));
  }

  private static void tag(List<String> tags, String key, String value) {
    if (!blank(value)) {
      tags.add(StoredRecord.tag(key, value));
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
