package io.sextant.testkit.receiver;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Drives a real client-streaming gRPC call the way an agent does, for receiver tests. */
public final class ClientStreams {
  private ClientStreams() {}

  /** Sends the messages on one client-streaming call, waits for its end (30 s at most) and returns its status. */
  public static <Q, R> Status send(Function<StreamObserver<R>, StreamObserver<Q>> call, List<Q> messages)
      throws Exception {
    return io.sextant.api.receiver.ClientStreams.send(call, messages, Duration.ofSeconds(30));
  }

  /** A response observer that ignores responses and completes {@code end} with the call's final status. */
  public static <R> StreamObserver<R> endingIn(CompletableFuture<Status> end) {
    return io.sextant.api.receiver.ClientStreams.endingIn(end);
  }
}
