package io.sextant.api.storage;

import java.util.List;

/**
 * Append-only records queried by kind, entity and time: profiling samples, sampled calls, events.
 * Unlike metrics they are not aggregated; they are kept for {@link Retention#recordDays()} days
 * (whole time buckets are dropped by {@link StorageComponent#applyRetention}).
 */
public interface RecordStore {
  /** Writes records; a record with the id of one already written (same kind) replaces it. */
  void write(List<StoredRecord> records);

  /** The matching records, newest first, at most {@link RecordQuery#limit()}. */
  List<StoredRecord> read(RecordQuery query);
}
