package io.sextant.api.log;

import io.sextant.api.id.EntityIds;
import io.sextant.api.storage.RecordBodies;
import io.sextant.api.storage.StoredRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * How a log is kept in the record store: kind {@value #KIND}, about its service (the record's
 * entity), with a tag per thing a query filters on: {@code instance=<instance id>}, {@code
 * endpoint=<endpoint id>}, and {@code t:<key>=<value>} per log tag ({@link #logTag}; a {@code
 * response.flag} tag once per flag and once with them all, so either filters). The whole log is a
 * small versioned binary body. The id is the writer's (a hash of what was logged, so a replay
 * replaces instead of duplicating).
 */
public final class LogRecords {
  public static final String KIND = "log";
  public static final String INSTANCE = "instance";
  public static final String ENDPOINT = "endpoint";
  /** The tag keys of an Envoy error log. */
  public static final String STATUS_CODE = "status.code";
  public static final String RESPONSE_FLAG = "response.flag";
  /** ERROR, WARN or INFO: what booster-ui colours a log by and Horizon filters levels on. */
  public static final String LEVEL = "level";
  /** The tag keys clients can filter on and complete ({@code queryLogTagAutocompleteKeys}). */
  public static final List<String> SEARCHABLE_TAGS = List.of(LEVEL, STATUS_CODE, RESPONSE_FLAG);

  private static final int VERSION = 1;
  private static final String LOG_TAG_PREFIX = "t:";

  private LogRecords() {}

  /** The record tag that filters on the log tag {@code key=value}. */
  public static String logTag(String key, String value) {
    return LOG_TAG_PREFIX + StoredRecord.tag(key, value);
  }

  /** The record of {@code log} under {@code id}. */
  public static StoredRecord toRecord(String id, LogEntry log) {
    String service = EntityIds.serviceId(log.service(), true);
    List<String> tags = new ArrayList<>();
    if (!log.instance().isEmpty()) {
      tags.add(StoredRecord.tag(INSTANCE, EntityIds.instanceId(service, log.instance())));
    }
    if (!log.endpoint().isEmpty()) {
      tags.add(StoredRecord.tag(ENDPOINT, EntityIds.endpointId(service, log.endpoint())));
    }
    for (LogEntry.Tag t : log.tags()) {
      tags.add(logTag(t.key(), t.value()));
      if (t.key().equals(RESPONSE_FLAG) && t.value().contains(",")) {
        for (String flag : t.value().split(",")) {
          tags.add(logTag(RESPONSE_FLAG, flag));
        }
      }
    }
    return new StoredRecord(KIND, id, service, log.timeMillis(), tags, encode(log));
  }

  public static LogEntry fromRecord(StoredRecord record) {
    if (!KIND.equals(record.kind())) {
      throw new IllegalArgumentException("not a log record: " + record.kind());
    }
    return decode(record.body());
  }

  static byte[] encode(LogEntry log) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + log.content().length());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      for (String s : List.of(log.service(), log.instance(), log.endpoint(), log.contentType(), log.content())) {
        RecordBodies.writeString(out, s);
      }
      out.writeLong(log.timeMillis());
      out.writeInt(log.tags().size());
      for (LogEntry.Tag t : log.tags()) {
        RecordBodies.writeString(out, t.key());
        RecordBodies.writeString(out, t.value());
      }
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return bytes.toByteArray();
  }

  static LogEntry decode(byte[] body) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown log record version " + version);
      }
      String service = RecordBodies.readString(in);
      String instance = RecordBodies.readString(in);
      String endpoint = RecordBodies.readString(in);
      String contentType = RecordBodies.readString(in);
      String content = RecordBodies.readString(in);
      long time = in.readLong();
      int count = in.readInt();
      if (count < 0 || count > in.available()) {
        throw new IOException("bad tag count " + count);
      }
      List<LogEntry.Tag> tags = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        tags.add(new LogEntry.Tag(RecordBodies.readString(in), RecordBodies.readString(in)));
      }
      return new LogEntry(service, instance, endpoint, time, contentType, content, tags);
    } catch (IOException ex) {
      throw new IllegalArgumentException("corrupt log record", ex);
    }
  }
}
