package io.sextant.receiver.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.grpc.GrpcClients;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.plugin.ReceiverContext;
import io.sextant.api.receiver.RecordSink;
import io.sextant.api.receiver.RecordWriter;
import io.sextant.api.storage.RecordQuery;
import io.sextant.api.storage.StoredRecord;
import io.sextant.testkit.config.KeySettings;
import io.sextant.testkit.poll.Poll;
import io.sextant.testkit.receiver.ClientStreams;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.skywalking.apm.network.event.v3.Event;
import org.apache.skywalking.apm.network.event.v3.EventServiceGrpc;
import org.apache.skywalking.apm.network.event.v3.Source;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a client is told when storage fails or the write queue is full, on a real socket with the
 * published client stubs. The record writer here is a stand-in for a store that fails or stalls,
 * the one thing a real store cannot be made to do on demand; the stored path is tested end to end
 * in the server's {@code EventsEndToEnd}.
 */
class EventReceiverStorageTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private EventReceiver receiver;
  private Server server;

  /** Fails the first {@code failures} writes, then keeps what it is given. */
  private static final class FlakyWriter implements RecordWriter {
    final AtomicInteger failures;
    final List<StoredRecord> written = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch gate;

    FlakyWriter(int failures, boolean gated) {
      this.failures = new AtomicInteger(failures);
      this.gate = new CountDownLatch(gated ? 1 : 0);
    }

    @Override
    public void write(List<StoredRecord> records) {
      entered.countDown();
      try {
        gate.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (failures.getAndDecrement() > 0) {
        throw new IllegalStateException("disk on fire");
      }
      written.addAll(records);
    }

    @Override
    public List<StoredRecord> read(RecordQuery query) {
      return List.of();
    }
  }

  private String serve(RecordWriter writer, Map<String, String> settings) {
    EventReceiverFactory factory = new EventReceiverFactory();
    receiver = (EventReceiver) factory.create(new ReceiverContext(KeySettings.of(factory.keys(), settings),
        new RefusingSink(), writer, registry));
    receiver.start();
    GrpcService grpc = GrpcService.builder().supportedSerializationFormats(GrpcSerializationFormats.PROTO)
        .addService(receiver.services().get(0)).build();
    server = Server.builder().http(0).service(grpc).gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO).build();
    server.start().join();
    return "http://127.0.0.1:" + server.activeLocalPort();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
    receiver.close();
  }

  private static Status send(String uri, List<Event> events) throws Exception {
    EventServiceGrpc.EventServiceStub stub = GrpcClients.builder(uri).build(EventServiceGrpc.EventServiceStub.class);
    return ClientStreams.send(stub::collect, events);
  }

  private static Event event(String uuid) {
    return Event.newBuilder().setUuid(uuid).setName("Deploy").setLayer("GENERAL").setStartTime(1_700_000_000_000L)
        .setSource(Source.newBuilder().setService("svc")).build();
  }

  private double count(String name, String reason) {
    var search = registry.find(name).tag("receiver", "event");
    Counter c = reason == null ? search.counter() : search.tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void aStorageFailureAnswersUnavailableAndIsCountedThenTheNextStreamIsStored() throws Exception {
    FlakyWriter writer = new FlakyWriter(1, false);
    String uri = serve(writer, Map.of());

    Status failed = send(uri, List.of(event("e1")));

    assertThat(failed.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getDescription())
        .isEqualTo("storing events failed (disk on fire); 0 events of this stream were stored, retry the rest later");
    assertThat(count("sextant_receiver_records_rejected", "storage_unavailable")).isEqualTo(1);
    assertThat(count("sextant_receiver_records_accepted", null)).isZero();

    Status retried = send(uri, List.of(event("e1")));

    assertThat(retried.getCode()).isEqualTo(Status.Code.OK);
    assertThat(writer.written).extracting(StoredRecord::id).containsExactly("e1");
    assertThat(count("sextant_receiver_records_accepted", null)).isEqualTo(1);
  }

  @Test
  void aFullWriteQueueEndsTheStreamWithResourceExhaustedOnceWhatItQueuedIsStored() throws Exception {
    FlakyWriter writer = new FlakyWriter(0, true);
    String uri = serve(writer, Map.of("receiver.event.maxPendingEvents", "1"));
    CompletableFuture<Status> first = CompletableFuture.supplyAsync(() -> sendQuietly(uri, List.of(event("a"))));
    assertThat(writer.entered.await(30, TimeUnit.SECONDS)).as("the writer is busy with the first stream").isTrue();

    // One event fills the queue while the writer is busy; the next one finds it full.
    CompletableFuture<Status> second =
        CompletableFuture.supplyAsync(() -> sendQuietly(uri, List.of(event("b"), event("c"), event("d"))));
    Poll.until("the second stream found the queue full", Duration.ofSeconds(30),
        () -> count("sextant_receiver_records_rejected", "overloaded") == 1);
    Poll.stays("the second stream not answered while its queued event is not stored", Duration.ofMillis(200),
        () -> !second.isDone());
    writer.gate.countDown();

    assertThat(first.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    Status status = second.get(30, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).isEqualTo(
        "the event write queue is full; 1 events of this stream were stored, retry the rest later");
    assertThat(writer.written).extracting(StoredRecord::id).containsExactly("a", "b");
    assertThat(count("sextant_receiver_records_rejected", "overloaded")).isEqualTo(1);
  }

  private static Status sendQuietly(String uri, List<Event> events) {
    try {
      return send(uri, events);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The event receiver never offers to the aggregator. */
  private static final class RefusingSink implements RecordSink {
    @Override
    public io.sextant.api.receiver.Admission offer(io.sextant.api.model.Observation observation) {
      throw new AssertionError("events are not aggregated");
    }
  }
}
