package io.sextant.receiver.event;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.event.Event;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.Rejection;
import io.sextant.receiver.common.Rejections;
import java.time.Clock;
import org.apache.skywalking.apm.network.common.v3.Commands;

/**
 * The server side of one {@code EventService/collect} stream. Events are validated here and
 * written by the {@link EventWriter}; the stream is answered only when every event it sent has
 * been written (or refused), so an answered event is stored:
 * <ul>
 *   <li>OK (an empty {@code Commands}) when all were stored;
 *   <li>{@code INVALID_ARGUMENT} "rejected N of M events; first: reason: detail" when some were
 *       refused (the others are stored; the stream went on);
 *   <li>{@code RESOURCE_EXHAUSTED} at once when the writer's queue is full, and {@code UNAVAILABLE}
 *       when storage failed, each naming how many events were stored; later messages are ignored.
 * </ul>
 * gRPC calls {@code on*} from one thread at a time, the writer reports from its own: both meet
 * under this object's lock.
 */
final class EventStream implements StreamObserver<org.apache.skywalking.apm.network.event.v3.Event> {
  private final EventValidator validator;
  private final EventWriter writer;
  private final ReceiverMetrics metrics;
  private final Clock clock;
  private final StreamObserver<Commands> response;
  private final EventWriter.Outcome outcome = new EventWriter.Outcome() {
    @Override
    public void stored() {
      EventStream.this.stored();
    }

    @Override
    public void rejected(Rejection rejection) {
      EventStream.this.writerRejected(rejection);
    }

    @Override
    public void failed(RuntimeException cause) {
      EventStream.this.failed(cause);
    }
  };
  private long received;
  private long pending;
  private long stored;
  private final Rejections rejections;
  /** Ends the stream as soon as nothing is pending: the queue was full or storage failed. */
  private Status.Code endCode;
  private String endCause;
  private boolean clientDone;
  private boolean answered;

  EventStream(EventValidator validator, EventWriter writer, ReceiverMetrics metrics, Clock clock,
      StreamObserver<Commands> response) {
    this.validator = validator;
    this.writer = writer;
    this.metrics = metrics;
    this.rejections = new Rejections(metrics);
    this.clock = clock;
    this.response = response;
  }

  @Override
  public synchronized void onNext(org.apache.skywalking.apm.network.event.v3.Event message) {
    if (answered || endCode != null) {
      return;
    }
    metrics.message();
    received++;
    Object validated = validator.toEvent(message);
    if (validated instanceof Rejection r) {
      reject(r);
      return;
    }
    pending++;
    if (!writer.offer((Event) validated, clock.millis(), outcome)) {
      pending--;
      metrics.rejected("overloaded", 1);
      endCode = Status.Code.RESOURCE_EXHAUSTED;
      endCause = "the event write queue is full";
      answerWhenSettled();
    }
  }

  private synchronized void stored() {
    pending--;
    stored++;
    metrics.accepted(1);
    answerWhenSettled();
  }

  private synchronized void writerRejected(Rejection r) {
    pending--;
    reject(r);
    answerWhenSettled();
  }

  private synchronized void failed(RuntimeException cause) {
    pending--;
    metrics.rejected("storage_unavailable", 1);
    if (endCode == null) {
      endCode = Status.Code.UNAVAILABLE;
      endCause = "storing events failed (" + cause.getMessage() + ")";
    }
    answerWhenSettled();
  }

  private void reject(Rejection r) {
    rejections.add(r);
  }

  @Override
  public synchronized void onError(Throwable t) {
    // The client cancelled: nothing to answer; what it sent is still written.
    answered = true;
  }

  @Override
  public synchronized void onCompleted() {
    clientDone = true;
    answerWhenSettled();
  }

  private void answerWhenSettled() {
    if (answered || pending > 0 || (endCode == null && !clientDone)) {
      return;
    }
    answered = true;
    if (endCode != null) {
      response.onError(Status.fromCode(endCode)
          .withDescription(endCause + "; " + stored + " events of this stream were stored, retry the rest later")
          .asRuntimeException());
    } else if (rejections.count() > 0) {
      response.onError(Status.INVALID_ARGUMENT.withDescription(rejections.summary(received, "events"))
          .asRuntimeException());
    } else {
      response.onNext(Commands.getDefaultInstance());
      response.onCompleted();
    }
  }
}
