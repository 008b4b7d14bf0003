package io.sextant.api.plugin;

import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.Settings;
import io.sextant.api.receiver.RecordSink;

/**
 * What a receiver is given: its settings, the sink it pushes records into, and the meter registry
 * for its self-metrics. Receivers that must read state (e.g. to answer an agent's task poll) get a
 * narrow read port added here, never the storage itself.
 */
public record ReceiverContext(Settings settings, RecordSink sink, MeterRegistry meters) {}
