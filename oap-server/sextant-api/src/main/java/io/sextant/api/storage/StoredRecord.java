package io.sextant.api.storage;

import java.util.List;

/**
 * One append-only record: a profiling sample, a sampled call, an event. {@code kind} says which
 * (stores keep kinds apart, e.g. one index family each); {@code id} is unique within the kind, so
 * writing a record again replaces it instead of duplicating it; {@code entityId} is what it is
 * about (a service, instance, process or task id); {@code tags} are {@code key=value} strings a read
 * can filter on; {@code body} is opaque to storage (a protobuf or JSON encoding chosen by the
 * kind's owner).
 */
public record StoredRecord(String kind, String id, String entityId, long timeMillis, List<String> tags, byte[] body) {
  public StoredRecord {
    tags = List.copyOf(tags);
  }

  /** The tag {@code key=value}, as written in {@link #tags()} and asked for in {@link RecordQuery#tags()}. */
  public static String tag(String key, String value) {
    return key + "=" + value;
  }
}
