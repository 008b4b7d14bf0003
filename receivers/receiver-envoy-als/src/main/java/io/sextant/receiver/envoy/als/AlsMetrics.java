package io.sextant.receiver.als;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The receiver's self-metrics: entries received, entries attributed (turned into records), entries
 * dropped by reason, and entries attributed only in part (the caller could not be named).
 */
final class AlsMetrics {
  private final MeterRegistry registry;
  final Counter httpEntries;
  final Counter tcpEntries;
  final Counter attributed;
  final Counter endpointOverflow;
  private final ConcurrentHashMap<String, Counter> dropped = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> partial = new ConcurrentHashMap<>();

  AlsMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.httpEntries = Counter.builder("sextant_als_entries").tag("kind", "http").register(registry);
    this.tcpEntries = Counter.builder("sextant_als_entries").tag("kind", "tcp").register(registry);
    this.attributed = Counter.builder("sextant_als_entries_attributed").register(registry);
    this.endpointOverflow = Counter.builder("sextant_als_endpoint_overflow").register(registry);
  }

  void dropped(String reason, long count) {
    dropped.computeIfAbsent(reason, r -> Counter.builder("sextant_als_entries_dropped").tag("reason", r)
        .register(registry)).increment(count);
  }

  void partial(String reason) {
    partial.computeIfAbsent(reason, r -> Counter.builder("sextant_als_entries_partially_attributed")
        .tag("reason", r).register(registry)).increment();
  }
}
