package io.sextant.testkit.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sextant.api.config.ConfigKey;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.api.receiver.Receiver;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every receiver keeps, checked on a real socket with real protocol messages: the
 * receiver is made by its factory with a {@link RecordingSink} (and {@link InMemoryAgentPorts} for
 * agents that register processes or poll for work), served by Armeria on an ephemeral
 * port, and a subclass sends messages with a client from the protocol's published classes.
 *
 * <ul>
 *   <li>everything accepted arrives in the sink exactly once and is counted in {@code
 *       sextant_receiver_records_accepted}; every message in {@code sextant_receiver_messages};
 *   <li>a bad record is counted in {@code sextant_receiver_records_rejected} by reason while the
 *       good records of the same stream are accepted; the stream ends {@code INVALID_ARGUMENT}
 *       naming the reason (or OK, for protocols whose clients never read the answer);
 *   <li>an overloaded sink ends the stream at once with {@code RESOURCE_EXHAUSTED};
 *   <li>records the sink refuses as outside its time range are counted as {@code time_range}.
 * </ul>
 *
 * @param <M> the protocol's request message
 */
public abstract class ReceiverContractTest<M> {
  /** Messages to send on one stream, how many records the sink should accept, and what is rejected. */
  public record Batch<M>(List<M> messages, int acceptedRecords, String rejectedReason) {
    /** Only good records; at least two in all, all different. */
    public static <M> Batch<M> good(List<M> messages, int records) {
      return new Batch<>(messages, records, null);
    }

    /** Exactly one bad record, rejected for {@code reason}, amid good ones. */
    public static <M> Batch<M> withOneBad(List<M> messages, int goodRecords, String reason) {
      return new Batch<>(messages, goodRecords, reason);
    }
  }

  protected SimpleMeterRegistry registry;
  protected RecordingSink sink;
  /** Core's agent ports (process registry, profiling tasks) in memory. */
  protected InMemoryAgentPorts agents;
  protected Receiver receiver;
  private ServedReceiver served;
  private String uri;

  /** The factory under test. */
  protected abstract ReceiverFactory factory();

  /** Sends {@code messages} on one client stream to the server at {@code uri}; the call's final status. */
  protected abstract Status send(String uri, List<M> messages) throws Exception;

  protected abstract Batch<M> goodBatch();

  protected abstract Batch<M> batchWithOneBadRecord();

  /** Whether a stream with rejections ends {@code INVALID_ARGUMENT} (else OK: its clients never read it). */
  protected boolean rejectionsFailTheStream() {
    return true;
  }

  /** The address of the receiver's server, for a subclass's own tests. */
  protected final String uri() {
    return uri;
  }

  /** Values replacing the factory's defaults. */
  protected Map<String, String> settings() {
    return Map.of();
  }

  @BeforeEach
  void serve() {
    served = new ServedReceiver(factory(), settings());
    registry = served.registry;
    sink = served.sink;
    agents = served.agents;
    receiver = served.receiver;
    uri = served.uri();
  }

  @AfterEach
  void stop() {
    served.close();
  }

  @AfterAll
  static void awaitStopped() {
    ServedReceiver.awaitAllStopped();
  }

  @Test
  void theFactoryDeclaresItsKeysUnderItsName() {
    ReceiverFactory factory = factory();
    assertThat(receiver.name()).isEqualTo(factory.name());
    assertThat(factory.enabledKey()).isEqualTo("receiver." + factory.name() + ".enabled");
    assertThat(factory.keys()).extracting(ConfigKey::path).contains(factory.enabledKey())
        .allMatch(path -> path.startsWith("receiver." + factory.name() + "."));
    assertThat(receiver.services()).isNotEmpty();
  }

  @Test
  void everythingAcceptedArrivesOnceAndIsCounted() throws Exception {
    Batch<M> batch = goodBatch();
    assertThat(batch.acceptedRecords()).as("a good batch needs two records or more").isGreaterThanOrEqualTo(2);

    assertThat(send(uri, batch.messages()).getCode()).isEqualTo(Status.Code.OK);

    assertThat(sink.accepted()).hasSize(batch.acceptedRecords()).doesNotHaveDuplicates();
    assertThat(sink.offers()).isEqualTo(batch.acceptedRecords());
    assertThat(count("sextant_receiver_records_accepted")).isEqualTo(batch.acceptedRecords());
    assertThat(count("sextant_receiver_messages")).isEqualTo(batch.messages().size());
    assertThat(registry.find("sextant_receiver_records_rejected").counters()).isEmpty();
  }

  @Test
  void aBadRecordIsCountedByReasonAndTheGoodOnesAreAccepted() throws Exception {
    Batch<M> batch = batchWithOneBadRecord();

    Status status = send(uri, batch.messages());

    if (rejectionsFailTheStream()) {
      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).startsWith("rejected 1 of " + (batch.acceptedRecords() + 1) + " records; ")
          .contains("first: " + batch.rejectedReason() + ": ");
    } else {
      assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    }
    assertThat(rejected(batch.rejectedReason())).isEqualTo(1);
    assertThat(sink.accepted()).hasSize(batch.acceptedRecords());
    assertThat(count("sextant_receiver_records_accepted")).isEqualTo(batch.acceptedRecords());
  }

  @Test
  void anOverloadedSinkEndsTheStreamAtOnce() throws Exception {
    sink.overloadedAfter(1);

    Status status = send(uri, goodBatch().messages());

    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription())
        .isEqualTo("aggregation buffers are full; 1 records of this stream were accepted, retry the rest later");
    assertThat(sink.offers()).as("nothing is offered after the sink said no").isEqualTo(2);
    assertThat(sink.accepted()).hasSize(1);
    assertThat(count("sextant_receiver_records_accepted")).isEqualTo(1);
    // The refused record and whatever of its stream was not taken, in records: at least the one.
    assertThat(rejected("overloaded")).isBetween(1.0, (double) goodBatch().acceptedRecords() - 1);
  }

  @Test
  void recordsOutsideTheTimeRangeAreCountedAsRejected() throws Exception {
    sink.refusingTimeRange();
    Batch<M> batch = goodBatch();

    Status status = send(uri, batch.messages());

    if (rejectionsFailTheStream()) {
      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).contains("time_range");
    } else {
      assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    }
    assertThat(rejected("time_range")).isEqualTo(batch.acceptedRecords());
    assertThat(sink.accepted()).isEmpty();
    assertThat(count("sextant_receiver_records_accepted")).isZero();
  }

  @Test
  void closeIsIdempotent() {
    receiver.close();
    receiver.close();
  }

  /** A counter of this receiver, 0 if never registered. */
  protected final double count(String name) {
    Counter c = registry.find(name).tag("receiver", receiver.name()).counter();
    return c == null ? 0 : c.count();
  }

  protected final double rejected(String reason) {
    Counter c = registry.find("sextant_receiver_records_rejected").tag("receiver", receiver.name())
        .tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  /** Sends messages on any client-streaming call, waits for its end and returns its status. */
  protected static <Q, R> Status clientStream(Function<StreamObserver<R>, StreamObserver<Q>> call, List<Q> messages)
      throws Exception {
    return ClientStreams.send(call, messages);
  }
}
