package io.sextant.api.storage;

import java.util.List;

/**
 * The tags of a sampled record (SkyWalking's record-kind metrics: slow statements, sampled traces),
 * as the record queries read them: {@code name} (the literal shown, e.g. a URI), {@code value} (an
 * integer, e.g. a latency in ms, ranked by top_n) and {@code refId} (the trace it came from, may be
 * absent). Written by receivers with kind = the record name and entity = its owner's id.
 */
public final class SampledRecordTags {
  public static final String NAME = "name";
  public static final String VALUE = "value";
  public static final String REF_ID = "refId";

  private SampledRecordTags() {}

  /** The tags of one sampled record; {@code refId} left out when null or empty. */
  public static List<String> of(String name, long value, String refId) {
    return refId == null || refId.isEmpty()
        ? List.of(StoredRecord.tag(NAME, name), StoredRecord.tag(VALUE, Long.toString(value)))
        : List.of(StoredRecord.tag(NAME, name), StoredRecord.tag(VALUE, Long.toString(value)),
            StoredRecord.tag(REF_ID, refId));
  }
}
