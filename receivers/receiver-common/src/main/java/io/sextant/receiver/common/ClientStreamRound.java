package io.sextant.receiver.common;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** One client stream of a warm-up round: sends the messages, half-closes, waits for the answer. */
public final class ClientStreamRound {
  /** A round's stream that takes longer than this is stuck: the warm-up stops rather than hold readiness. */
  private static final long TIMEOUT_SECONDS = 10;

  private ClientStreamRound() {}

  /**
   * Opens a stream with {@code open} (a stub's client-streaming method), sends {@code messages} and
   * waits for the server's answer. Throws {@link IllegalStateException} naming the status if the
   * server ended the stream with an error.
   */
  public static <Q, A> void send(Function<StreamObserver<A>, StreamObserver<Q>> open, List<Q> messages)
      throws InterruptedException {
    CompletableFuture<Void> answered = new CompletableFuture<>();
    StreamObserver<Q> requests = open.apply(new StreamObserver<>() {
      @Override
      public void onNext(A value) {}

      @Override
      public void onError(Throwable t) {
        answered.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        answered.complete(null);
      }
    });
    messages.forEach(requests::onNext);
    requests.onCompleted();
    try {
      answered.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Status status = Status.fromThrowable(e.getCause());
      throw new IllegalStateException("the warm-up stream was refused: " + status.getCode()
          + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")"), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the warm-up stream had no answer in " + TIMEOUT_SECONDS + " s", e);
    }
  }
}
