package io.sextant.receiver.envoy.als;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.receiver.common.ReceiverMetrics;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The receiver's own self-metrics, beside the common ones ({@link ReceiverMetrics}, receiver
 * {@code als}): entries received, entries attributed (turned into records), entries dropped by
 * reason, and entries attributed only in part (the caller could not be named).
 */
final class AlsMetrics {
  static final String RECEIVER = "als";

  private final MeterRegistry registry;
  final ReceiverMetrics common;
  final Counter httpEntries;
  final Counter tcpEntries;
  final Counter attributed;
  final Counter endpointOverflow;
  private final ConcurrentHashMap<String, Counter> dropped = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> partial = new ConcurrentHashMap<>();

  AlsMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.common = ReceiverMetrics.forReceiver(RECEIVER, registry);
    this.httpEntries = Counter.builder("sextant_als_entries").tag("kind", "http").register(registry);
    this.tcpEntries = Counter.builder("sextant_als_entries").tag("kind", "tcp").register(registry);
    this.attributed = Counter.builder("sextant_als_entries_attributed").register(registry);
    this.endpointOverflow = Counter.builder("sextant_als_endpoint_overflow").register(registry);
  }

  /**
   * Entries that cannot be attributed: counted here and as rejected records of the receiver (an
   * entry that yields no record is one rejected record).
   */
  void dropped(String reason, long count) {
    droppedOnly(reason, count);
    common.rejected(reason, count);
  }

  /** Only this receiver's counter: for refusals of the sink, which the stream counts itself. */
  void droppedOnly(String reason, long count) {
    dropped.computeIfAbsent(reason, r -> Counter.builder("sextant_als_entries_dropped").tag("reason", r)
        .register(registry)).increment((double) count);
  }

  void partial(String reason) {
    partial.computeIfAbsent(reason, r -> Counter.builder("sextant_als_entries_partially_attributed")
        .tag("reason", r).register(registry)).increment();
  }
}
