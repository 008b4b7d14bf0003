package io.sextant.benchmarks;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A call through a generated gRPC stub: every message is serialized and written (and flushed) on
 * its own, as a client that sends one message at a time does.
 */
final class StubClientStream<Q, R> implements ClientStream<Q>, ClientResponseObserver<Q, R> {
  private final Runnable onReady;
  private final CompletableFuture<Status> done = new CompletableFuture<>();
  private final ClientCallStreamObserver<Q> out;

  private StubClientStream(Function<StreamObserver<R>, StreamObserver<Q>> call, Runnable onReady) {
    this.onReady = onReady;
    this.out = (ClientCallStreamObserver<Q>) call.apply(this);
  }

  /** Opens calls with {@code call}, e.g. {@code stub::collect}. */
  static <Q, R> Opener<Q> opener(Function<StreamObserver<R>, StreamObserver<Q>> call) {
    return onReady -> new StubClientStream<>(call, onReady);
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<Q> requestStream) {
    requestStream.setOnReadyHandler(onReady);
  }

  @Override
  public boolean isReady() {
    return out.isReady();
  }

  @Override
  public void send(Q message, byte[] framed) {
    out.onNext(message);
  }

  @Override
  public void flush() {}

  @Override
  public CompletableFuture<Status> done() {
    return done;
  }

  @Override
  public void complete() {
    out.onCompleted();
  }

  @Override
  public void cancel(String why) {
    out.cancel(why, null);
  }

  @Override
  public void onNext(R value) {}

  @Override
  public void onError(Throwable t) {
    done.complete(Status.fromThrowable(t));
    onReady.run();
  }

  @Override
  public void onCompleted() {
    done.complete(Status.OK);
    onReady.run();
  }
}
