package io.sextant.core.alarm;

import io.sextant.api.storage.StoredRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * How an alarm is kept in the record store: kind {@value #KIND}, id its uuid (so a recovery
 * rewrites the same record), filed at its start time, tagged with its rule, scope and each of its
 * tags ({@code key=value}), the message as JSON in the body.
 */
public final class AlarmRecords {
  public static final String KIND = "alarm";
  static final String RULE = "rule";
  static final String SCOPE = "scope";
  static final String TAG = "tag.";

  private AlarmRecords() {}

  public static StoredRecord toRecord(AlarmMessage m, String entityId) {
    List<String> tags = new ArrayList<>();
    tags.add(StoredRecord.tag(RULE, m.ruleName()));
    tags.add(StoredRecord.tag(SCOPE, m.scope()));
    m.tags().forEach((k, v) -> tags.add(StoredRecord.tag(TAG + k, v)));
    return new StoredRecord(KIND, m.uuid(), entityId, m.startTime(), tags, AlarmJson.bytes(m));
  }

  public static AlarmMessage fromRecord(StoredRecord r) {
    return AlarmJson.fromBytes(r.body());
  }
}
