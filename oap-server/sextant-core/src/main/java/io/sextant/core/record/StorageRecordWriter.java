package io.sextant.core.record;

import io.sextant.api.receiver.RecordWriter;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StorageComponent;
import io.sextant.api.storage.StoredRecord;
import java.util.List;

/**
 * The receivers' {@link RecordWriter} over the record store. After each write it publishes
 * (Elasticsearch refreshes), because the flusher publishes only after writing metrics: without it,
 * events reported while no telemetry flows would stay unsearchable until the indices' periodic
 * refresh. Record writes are rare (receivers batch them), so the extra refreshes are few.
 */
public final class StorageRecordWriter implements RecordWriter {
  private final StorageComponent storage;

  public StorageRecordWriter(StorageComponent storage) {
    this.storage = storage;
  }

  @Override
  public void write(List<StoredRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    storage.records().write(records);
    storage.publish();
  }

  @Override
  public List<StoredRecord> read(RecordQuery query) {
    return storage.records().read(query);
  }
}
