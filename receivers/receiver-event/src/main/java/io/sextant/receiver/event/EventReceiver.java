package io.sextant.receiver.event;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.receiver.Receiver;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.receiver.common.ReceiverMetrics;
import java.time.Clock;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.Commands;
import org.apache.skywalking.apm.network.event.v3.Event;
import org.apache.skywalking.apm.network.event.v3.EventServiceGrpc;

/**
 * {@code skywalking.v3.EventService/collect}: a client stream of events (swctl {@code event
 * report}, the Kubernetes event exporter), kept in the record store as kind {@code event}, one
 * record per uuid (the start and end reports of an event merge). Self-metrics are the common
 * receiver counters ({@code receiver=event}; rejections by reason, including {@code overloaded}
 * and {@code storage_unavailable}) and {@code sextant_receiver_event_pending}, the events waiting
 * to be written.
 */
public final class EventReceiver implements Receiver {
  static final String NAME = "event";

  private final EventValidator validator;
  private final EventWriter writer;
  private final ReceiverMetrics metrics;
  private final Clock clock = Clock.systemUTC();
  private boolean started;

  public EventReceiver(RecordWriter records, EventReceiverConfig config, MeterRegistry registry) {
    this.validator = new EventValidator(config);
    this.writer = new EventWriter(records, config.maxPendingEvents());
    this.metrics = ReceiverMetrics.forReceiver(NAME, registry);
    Gauge.builder("sextant_receiver_event_pending", writer, EventWriter::pending)
        .description("events received and waiting to be written").register(registry);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ServerServiceDefinition> services() {
    return List.of(new EventServiceGrpc.EventServiceImplBase() {
      @Override
      public StreamObserver<Event> collect(StreamObserver<Commands> response) {
        return new EventStream(validator, writer, metrics, clock, response);
      }
    }.bindService());
  }

  @Override
  public synchronized void start() {
    if (!started) {
      started = true;
      writer.start();
    }
  }

  /** Writes the events still queued, then stops the writer. */
  @Override
  public void close() {
    writer.close();
  }
}
