package io.sextant.benchmarks;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaders;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpRequestWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;

/**
 * A call written as raw gRPC over HTTP/2: pre-serialized messages (each with its own 5-byte gRPC
 * prefix, so the server still receives one message per record when the batch is 1) are gathered
 * into chunks of about {@link #CHUNK_BYTES} and each chunk is one write, as an HTTP/2 client writes
 * the frames it has buffered when it sends faster than one message per network write. So the
 * generator's cost per message is a copy, and the machine's cores go to the server under test.
 * At most one chunk waits in the client.
 */
final class ChunkedClientStream<Q> implements ClientStream<Q> {
  static final int CHUNK_BYTES = 16 * 1024;

  private final HttpRequestWriter request;
  private final Runnable onReady;
  private final CompletableFuture<Status> done = new CompletableFuture<>();
  private byte[] chunk = new byte[CHUNK_BYTES];
  private int used;
  private CompletableFuture<Void> consumed = CompletableFuture.completedFuture(null);

  private ChunkedClientStream(WebClient client, String fullMethodName, Runnable onReady) {
    this.onReady = onReady;
    RequestHeaders headers = RequestHeaders.builder(HttpMethod.POST, "/" + fullMethodName)
        .contentType(MediaType.parse("application/grpc+proto"))
        .add("te", "trailers")
        .build();
    this.request = HttpRequest.streaming(headers);
    // Only the callback matters (it completes done); the future it returns carries nothing.
    CompletableFuture<?> unused = client.execute(request).aggregate().handle((response, error) -> {
      done.complete(error != null ? Status.UNAVAILABLE.withDescription(error.toString()) : status(response));
      onReady.run();
      return null;
    });
  }

  /** Opens calls of {@code fullMethodName} (service/method) with {@code client}. */
  static <Q> Opener<Q> opener(WebClient client, String fullMethodName) {
    return onReady -> new ChunkedClientStream<>(client, fullMethodName, onReady);
  }

  private static Status status(AggregatedHttpResponse response) {
    if (response.status() != HttpStatus.OK) {
      return Status.UNKNOWN.withDescription("HTTP " + response.status());
    }
    for (HttpHeaders h : new HttpHeaders[] {response.trailers(), response.headers()}) {
      String code = h.get("grpc-status");
      if (code != null) {
        return Status.fromCodeValue(Integer.parseInt(code)).withDescription(h.get("grpc-message"));
      }
    }
    return Status.UNKNOWN.withDescription("no grpc-status in the response");
  }

  @Override
  public boolean isReady() {
    return consumed.isDone();
  }

  @Override
  public void send(Q message, byte[] framed) {
    if (used + framed.length > chunk.length) {
      flush();
    }
    if (framed.length > chunk.length) {
      write(HttpData.wrap(framed.clone()));
      return;
    }
    System.arraycopy(framed, 0, chunk, used, framed.length);
    used += framed.length;
  }

  @Override
  public void flush() {
    if (used > 0) {
      write(HttpData.wrap(chunk, 0, used));
      chunk = new byte[CHUNK_BYTES];
      used = 0;
    }
  }

  private void write(HttpData data) {
    if (!request.tryWrite(data)) {
      return; // the call has ended: done tells how
    }
    consumed = request.whenConsumed();
    if (!consumed.isDone()) {
      // Only the callback matters (it wakes the sender); the future it returns carries nothing.
      CompletableFuture<?> unused = consumed.thenRun(onReady);
    }
  }

  @Override
  public CompletableFuture<Status> done() {
    return done;
  }

  @Override
  public void complete() {
    flush();
    request.close();
  }

  @Override
  public void cancel(String why) {
    request.abort();
  }
}
