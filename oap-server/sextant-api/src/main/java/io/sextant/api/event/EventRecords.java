package io.sextant.api.event;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How an event is kept in the record store: kind {@value #KIND}, id = its uuid (so a later report
 * of the same event replaces the record), one tag per field a query filters on, and the whole event
 * in a small versioned binary body. The record's time is the one of its first write and never
 * changes (a store may file records by day; SkyWalking also keeps an event's first time bucket).
 */
public final class EventRecords {
  public static final String KIND = "event";
  public static final String UUID = "uuid";
  public static final String SERVICE = "service";
  public static final String INSTANCE = "instance";
  public static final String ENDPOINT = "endpoint";
  public static final String NAME = "name";
  public static final String TYPE = "type";
  public static final String LAYER = "layer";

  private static final int VERSION = 1;

  private EventRecords() {}

  /** The record of {@code event}, filed at {@code timeMillis}. */
  public static StoredRecord toRecord(Event event, long timeMillis) {
    List<String> tags = new ArrayList<>(7);
    tags.add(StoredRecord.tag(UUID, event.uuid()));
    tags.add(StoredRecord.tag(SERVICE, event.service()));
    tags.add(StoredRecord.tag(INSTANCE, event.serviceInstance()));
    tags.add(StoredRecord.tag(ENDPOINT, event.endpoint()));
    tags.add(StoredRecord.tag(NAME, event.name()));
    tags.add(StoredRecord.tag(TYPE, event.type()));
    tags.add(StoredRecord.tag(LAYER, event.layer()));
    String entity = event.service().isEmpty() ? "" : EntityIds.serviceId(event.service(), true);
    return new StoredRecord(KIND, event.uuid(), entity, timeMillis, tags, encode(event));
  }

  public static Event fromRecord(StoredRecord record) {
    if (!KIND.equals(record.kind())) {
      throw new IllegalArgumentException("not an event record: " + record.kind());
    }
    return decode(record.body());
  }

  static byte[] encode(Event e) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      for (String s : List.of(e.uuid(), e.service(), e.serviceInstance(), e.endpoint(), e.name(), e.type(),
          e.message(), e.layer())) {
        RecordBodies.writeString(out, s);
      }
      out.writeLong(e.startTime());
      out.writeLong(e.endTime());
      out.writeInt(e.parameters().size());
      for (Map.Entry<String, String> p : e.parameters().entrySet()) {
        RecordBodies.writeString(out, p.getKey());
        RecordBodies.writeString(out, p.getValue());
      }
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return bytes.toByteArray();
  }

  static Event decode(byte[] body) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown event record version " + version);
      }
      String uuid = RecordBodies.readString(in);
      String service = RecordBodies.readString(in);
      String instance = RecordBodies.readString(in);
      String endpoint = RecordBodies.readString(in);
      String name = RecordBodies.readString(in);
      String type = RecordBodies.readString(in);
      String message = RecordBodies.readString(in);
      String layer = RecordBodies.readString(in);
      long start = in.readLong();
      long end = in.readLong();
      int count = in.readInt();
      Map<String, String> parameters = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        parameters.put(RecordBodies.readString(in), RecordBodies.readString(in));
      }
      return new Event(uuid, service, instance, endpoint, name, type, message, parameters, start, end, layer);
    } catch (IOException ex) {
      throw new IllegalArgumentException("corrupt event record", ex);
    }
  }
}
