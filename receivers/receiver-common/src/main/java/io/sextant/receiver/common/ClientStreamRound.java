package io.sextant.receiver.common;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sextant.api.receiver.ClientStreams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** One client stream of a warm-up round: sends the messages, half-closes, waits for the answer. */
public final class ClientStreamRound {
  /** A round's stream that takes longer than this is stuck: the warm-up stops rather than hold readiness. */
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private ClientStreamRound() {}

  /**
   * Opens a stream with {@code open} (a stub's client-streaming method), sends {@code messages} and
   * waits for the server's answer. Throws {@link IllegalStateException} naming the status if the
   * server ended the stream with an error.
   */
  public static <Q, A> void send(Function<StreamObserver<A>, StreamObserver<Q>> open, List<Q> messages)
      throws InterruptedException {
    Status status;
    try {
      status = ClientStreams.send(open, messages, TIMEOUT);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the warm-up stream had no answer in " + TIMEOUT.toSeconds() + " s", e);
    }
    if (!status.isOk()) {
      throw new IllegalStateException("the warm-up stream was refused: " + status.getCode()
          + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")"), status.asException());
    }
  }
}
