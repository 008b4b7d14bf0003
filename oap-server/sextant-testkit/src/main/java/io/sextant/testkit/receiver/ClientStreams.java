package io.sextant.testkit.receiver;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Drives a real client-streaming gRPC call the way an agent does, for receiver tests. */
public final class ClientStreams {
  private ClientStreams() {}

  /**
   * Sends the messages on one client-streaming call (a stub's method, e.g. {@code stub::collect}),
   * half-closes it, waits for its end (30 s at most) and returns its status.
   */
  public static <Q, R> Status send(Function<StreamObserver<R>, StreamObserver<Q>> call, List<Q> messages)
      throws Exception {
    CompletableFuture<Status> done = new CompletableFuture<>();
    StreamObserver<Q> out = call.apply(endingIn(done));
    messages.forEach(out::onNext);
    out.onCompleted();
    return done.get(30, TimeUnit.SECONDS);
  }

  /** A response observer that ignores responses and completes {@code end} with the call's final status. */
  public static <R> StreamObserver<R> endingIn(CompletableFuture<Status> end) {
    return new StreamObserver<>() {
      @Override
      public void onNext(R value) {}

      @Override
      public void onError(Throwable t) {
        end.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        end.complete(Status.OK);
      }
    };
  }
}
