package io.sextant.server.grpc;

import com.linecorp.armeria.common.FilteredHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpObject;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import org.reactivestreams.Subscriber;

/**
 * A gRPC request whose stream ends inside a message is answered {@code INVALID_ARGUMENT} instead of
 * OK: Armeria's deframer drops such a tail silently, so a sender cut off mid-message was told its
 * message had arrived. The request fails instead of completing (the call is cancelled, the messages
 * before it stay accepted), and {@link #answer} turns the aborted response into a gRPC status the
 * client can read. Follows only the 5-byte message prefixes (flag, length), never the bodies, so it
 * costs a few reads per message whatever the compression.
 */
final class WholeGrpcMessages extends FilteredHttpRequest {
  private static final int PREFIX = 5;

  private final Counter truncated;
  /** Bytes of the current prefix read so far (0..4), or PREFIX while inside a body. */
  private int prefixRead;
  private long declaredLength;
  private long bodyLeft;
  private volatile String refusal;

  WholeGrpcMessages(HttpRequest request, Counter truncated) {
    // Pooled: the data goes on to the deframer as it came, only its prefix bytes are read here.
    super(request, true);
    this.truncated = truncated;
  }

  @Override
  protected HttpObject filter(HttpObject obj) {
    if (obj instanceof HttpData data) {
      follow(data);
    }
    return obj;
  }

  private void follow(HttpData data) {
    ByteBuf bytes = data.byteBuf();
    int at = bytes.readerIndex();
    int end = bytes.writerIndex();
    while (at < end) {
      if (prefixRead == PREFIX) {
        long take = Math.min(bodyLeft, end - at);
        bodyLeft -= take;
        at += (int) take;
        if (bodyLeft == 0) {
          prefixRead = 0;
        }
        continue;
      }
      if (prefixRead == 0) {
        declaredLength = 0;
      } else {
        declaredLength = declaredLength << 8 | bytes.getUnsignedByte(at);
      }
      at++;
      prefixRead++;
      if (prefixRead == PREFIX) {
        bodyLeft = declaredLength;
        if (bodyLeft == 0) {
          prefixRead = 0;
        }
      }
    }
  }

  @Override
  protected void beforeComplete(Subscriber<? super HttpObject> subscriber) {
    if (prefixRead == 0) {
      return;
    }
    truncated.increment();
    String what = prefixRead < PREFIX
        ? "inside a message prefix (" + prefixRead + " of 5 bytes)"
        : "after " + (declaredLength - bodyLeft) + " of the " + declaredLength + " bytes its last message declares";
    refusal = "truncated gRPC message: the request ended " + what;
    throw Status.INVALID_ARGUMENT.withDescription(refusal).asRuntimeException();
  }

  /**
   * The service's response, or for a truncated request a trailers-only {@code INVALID_ARGUMENT}
   * (Armeria would answer a failed request with HTTP 500, which clients read as UNKNOWN).
   */
  HttpResponse answer(HttpResponse response) {
    return response.recover(cause -> refusal == null ? HttpResponse.ofFailure(cause)
        : TrailersOnly.of(Status.Code.INVALID_ARGUMENT, refusal));
  }
}
