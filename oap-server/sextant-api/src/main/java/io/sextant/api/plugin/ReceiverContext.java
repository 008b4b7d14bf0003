package io.sextant.api.plugin;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.Settings;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.receiver.RecordWriter;

/**
 * What a receiver is given: its settings, the sink it pushes records to aggregate into, the writer
 * for records kept as they are (events, profiling data), and the meter registry for its
 * self-metrics. Receivers that must read state (e.g. to answer an agent's task poll) get a narrow
 * read port added here, never the storage itself.
 */
public record ReceiverContext(Settings settings, RecordSink sink, RecordWriter records, MeterRegistry meters) {
  /** A context without record storage ({@link RecordWriter#NONE}), for receivers that only aggregate. */
  public ReceiverContext(Settings settings, RecordSink sink, MeterRegistry meters) {
    this(settings, sink, RecordWriter.NONE, meters);
  }
}
