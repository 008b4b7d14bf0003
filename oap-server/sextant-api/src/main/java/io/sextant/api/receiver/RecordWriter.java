package io.sextant.api.receiver;

import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StoredRecord;
import java.util.List;

/**
 * Where a receiver writes records that are kept as they are, not aggregated (events, profiling
 * data): a narrow port to the record store. Unlike {@link RecordSink} it blocks until storage has
 * the records (so a receiver can acknowledge only what is stored) and throws when it cannot:
 * receivers call it off the network threads. {@link #read} is for receivers that merge a report
 * into what an earlier one wrote (an event's end into its start).
 */
public interface RecordWriter {
  /** A writer for contexts without storage (tests of other receivers): every call refuses. */
  RecordWriter NONE = new RecordWriter() {
    @Override
    public void write(List<StoredRecord> records) {
      throw new IllegalStateException("no record storage in this context");
    }

    @Override
    public List<StoredRecord> read(RecordQuery query) {
      throw new IllegalStateException("no record storage in this context");
    }
  };

  /**
   * Stores the records (a record with the kind and id of one already written replaces it) and
   * makes them searchable; returns only once they are stored, throws if they could not be.
   */
  void write(List<StoredRecord> records);

  /** Records written earlier, as {@code RecordStore.read} answers them. */
  List<StoredRecord> read(RecordQuery query);
}
