package io.sextant.benchmarks;

import io.grpc.Status;
import java.util.concurrent.CompletableFuture;

/**
 * One client-streaming gRPC call as {@link StreamSender} drives it, whatever writes the bytes.
 * Called from the sender's thread only; {@link #done} completes on the client's threads.
 *
 * @param <Q> the request message
 */
interface ClientStream<Q> {
  /** True if a message may be sent now without queueing in the client beyond its window. */
  boolean isReady();

  /** Sends one message; {@code framed} is the same message with its 5-byte gRPC prefix. */
  void send(Q message, byte[] framed);

  /** Hands everything sent so far to the connection (before the sender waits for anything). */
  void flush();

  /** The call's final status, from the server or the connection. */
  CompletableFuture<Status> done();

  /** Ends the request side; the server then answers. */
  void complete();

  void cancel(String why);

  /** Opens a call; {@code onReady} is run whenever the call may take more after not being ready. */
  @FunctionalInterface
  interface Opener<Q> {
    ClientStream<Q> open(Runnable onReady);
  }
}
