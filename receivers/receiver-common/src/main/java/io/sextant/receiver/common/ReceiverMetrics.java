package io.sextant.receiver.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The self-metrics every receiver has, tagged {@code receiver=<name>}: messages received, records
 * accepted by the sink, and records rejected by reason. One scheme for all receivers, so a
 * dashboard or alert written for one works for the next. Receivers may keep their own finer
 * metrics beside these.
 */
public final class ReceiverMetrics {
  public static final String MESSAGES = "sextant_receiver_messages";
  public static final String RECORDS_ACCEPTED = "sextant_receiver_records_accepted";
  public static final String RECORDS_REJECTED = "sextant_receiver_records_rejected";

  private final String receiver;
  private final MeterRegistry registry;
  private final Counter messages;
  private final Counter accepted;
  private final ConcurrentHashMap<String, Counter> rejected = new ConcurrentHashMap<>();

  private ReceiverMetrics(String receiver, MeterRegistry registry) {
    this.receiver = receiver;
    this.registry = registry;
    // Registered at once so that a scrape shows 0 rather than nothing before the first message.
    this.messages = Counter.builder(MESSAGES).tag("receiver", receiver).register(registry);
    this.accepted = Counter.builder(RECORDS_ACCEPTED).tag("receiver", receiver).register(registry);
  }

  /** The metrics of {@code receiver} (its factory's name); asking twice shares the counters. */
  public static ReceiverMetrics forReceiver(String receiver, MeterRegistry registry) {
    return new ReceiverMetrics(receiver, registry);
  }

  public String receiver() {
    return receiver;
  }

  public void message() {
    messages.increment();
  }

  public void accepted(long count) {
    accepted.increment((double) count);
  }

  /** {@code reason} is a short stable tag ({@code time_range}, {@code missing_dest_service}). */
  public void rejected(String reason, long count) {
    rejected.computeIfAbsent(reason, r -> Counter.builder(RECORDS_REJECTED)
        .tag("receiver", receiver).tag("reason", r).register(registry)).increment((double) count);
  }
}
