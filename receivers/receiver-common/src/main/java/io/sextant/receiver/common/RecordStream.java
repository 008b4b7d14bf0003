package io.sextant.receiver.common;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.model.Observation;
import io.sextant.api.receiver.Admission;
import io.sextant.api.receiver.RecordSink;

/**
 * The server side of one client-streaming call that turns messages into records for a {@link
 * RecordSink}. A receiver subclasses it per call and implements {@link #handle}, translating a
 * message and calling {@link #offer} for each record and {@link #reject} for each bad one.
 *
 * <p>This class owns what every receiver must do alike:
 * <ul>
 *   <li>counting messages, accepted records (once per message, not per record) and rejections by
 *       reason in {@link ReceiverMetrics};
 *   <li>a bad record is counted and skipped, and the stream goes on;
 *   <li>{@link Admission#REJECTED_TIME_RANGE} is a rejection with reason {@code time_range};
 *   <li>{@link Admission#REJECTED_OVERLOADED} and {@link Admission#REJECTED_NEW_ENTITIES} end the
 *       stream at once with {@code RESOURCE_EXHAUSTED}; what was accepted stays accepted, and every
 *       record not taken is counted by its cause ({@code overloaded}, {@code new_entities}): the
 *       refused one, the rest of its message ({@link #recordsIn}) and any later message's;
 *   <li>at the client's end, the success response, or with {@link Completion#REPORT_REJECTIONS}
 *       {@code INVALID_ARGUMENT} "rejected N of M records; first: reason: detail".
 * </ul>
 *
 * <p>gRPC calls a stream's observer from one thread at a time, so no field here is shared.
 *
 * @param <M> the request message
 * @param <R> the response message
 */
public abstract class RecordStream<M, R> implements StreamObserver<M> {
  /** How a stream that had rejections ends. */
  public enum Completion {
    /** {@code INVALID_ARGUMENT} naming the first problem, so a client can see its bad input. */
    REPORT_REJECTIONS,
    /** The success response whatever was rejected: for clients that never read it (Envoy). */
    ALWAYS_OK
  }

  static final String TIME_RANGE_DETAIL = "startTime is outside the accepted window";

  private final RecordSink sink;
  private final ReceiverMetrics metrics;
  private final Completion completion;
  private final StreamObserver<R> response;
  private final R success;
  private long accepted;
  /** Of {@link #accepted}, how many the metrics have been told of: they are told once per message. */
  private long acceptedCounted;
  private final Rejections rejections;
  private boolean done;
  /** Why the sink refused this stream; null while it takes records. */
  private String refusal;
  /** The message being handled, while it is. */
  private M current;
  /** Records of the current message offered or rejected so far. */
  private long handledInMessage;

  protected RecordStream(RecordSink sink, ReceiverMetrics metrics, Completion completion,
      StreamObserver<R> response, R success) {
    this.sink = sink;
    this.metrics = metrics;
    this.rejections = new Rejections(metrics);
    this.completion = completion;
    this.response = response;
    this.success = success;
  }

  /** Translates one message; returns early when {@link #offer} answers false. */
  protected abstract void handle(M message);

  /**
   * How many records {@code message} carries, so that a refusal counts every record it cost; a
   * receiver whose messages carry several overrides it.
   */
  protected long recordsIn(M message) {
    return 1;
  }

  /**
   * Called with every answer of the sink before it is acted on, for a receiver's own metrics
   * beside the common ones.
   */
  protected void admitted(Admission admission) {}

  @Override
  public final void onNext(M message) {
    if (done) {
      if (refusal != null) {
        metrics.rejected(refusal, recordsIn(message));
      }
      return;
    }
    metrics.message();
    current = message;
    handledInMessage = 0;
    try {
      sink.batch(() -> handle(message));
    } finally {
      current = null; // a stream lives for hours: it must not keep its last message (up to 4 MB)
      countAccepted();
    }
  }

  private void countAccepted() {
    metrics.accepted(accepted - acceptedCounted);
    acceptedCounted = accepted;
  }

  /** False when the stream has just been ended because the sink is full: stop handling. */
  protected final boolean offer(Observation observation) {
    return admit(sink.offer(observation));
  }

  /**
   * Offers another view of a record just offered (e.g. the MESH layer's view of a kernel record seen
   * behind Istio's ztunnel): admitted like any record, but not counted as one the client sent. A full
   * sink ends the stream as for the client's own records, counting those of the message not handled.
   */
  protected final boolean offerDerived(Observation observation) {
    Admission admission = sink.offer(observation);
    if (admission == Admission.ACCEPTED || admission == Admission.REJECTED_TIME_RANGE) {
      return true; // its original was taken, or refused and counted, already
    }
    return admit(admission); // the refused count: the message's records after the one just handled
  }

  /**
   * Called once when the client ends the stream, before the answer, for receivers that handle a
   * whole stream as one batch (SkyWalking's meter {@code collect}); it may offer and reject.
   */
  protected void completing() {}

  /**
   * Counts {@code count} records as rejected for {@code reason}; the first problem of the stream
   * is named in its final status. The stream goes on.
   */
  protected final void reject(String reason, String detail, long count) {
    handledInMessage += count;
    rejections.add(reason, detail, count);
  }

  private boolean admit(Admission admission) {
    admitted(admission);
    handledInMessage++;
    switch (admission) {
      case ACCEPTED -> {
        accepted++;
        return true;
      }
      case REJECTED_TIME_RANGE -> {
        reject("time_range", TIME_RANGE_DETAIL, 1);
        return true;
      }
      default -> {
        boolean newEntities = admission == Admission.REJECTED_NEW_ENTITIES;
        refusal = newEntities ? "new_entities" : "overloaded";
        // This record and the rest of its message (at least this one, whatever recordsIn says).
        long refused = Math.max(1, (current == null ? 1 : recordsIn(current)) - (handledInMessage - 1));
        metrics.rejected(refusal, refused);
        countAccepted(); // before answering, so that a client that sees the status sees the counts
        done = true;
        response.onError(Status.RESOURCE_EXHAUSTED
            .withDescription((newEntities
                ? "too many new entities at once (services, instances, endpoints never seen before); known ones"
                    + " are still taken; "
                : "aggregation buffers are full; ")
                + accepted + " records of this stream were accepted, retry the rest later")
            .asRuntimeException());
        return false;
      }
    }
  }

  @Override
  public final void onError(Throwable t) {
    done = true;
  }

  @Override
  public final void onCompleted() {
    if (done) {
      return;
    }
    try {
      completing();
    } finally {
      countAccepted();
    }
    if (done) {
      return; // the sink was full: the stream has been answered
    }
    done = true;
    if (rejections.count() > 0 && completion == Completion.REPORT_REJECTIONS) {
      response.onError(Status.INVALID_ARGUMENT
          .withDescription(rejections.summary(rejections.count() + accepted, "records"))
          .asRuntimeException());
    } else {
      response.onNext(success);
      response.onCompleted();
    }
  }
}
