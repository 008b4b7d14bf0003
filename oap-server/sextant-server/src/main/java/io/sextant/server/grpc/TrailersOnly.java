package io.sextant.server.grpc;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;

/**
 * A gRPC answer with no message: HTTP 200, {@code content-type: application/grpc} and the status in
 * one HEADERS frame that ends the stream. grpc-go (Satellite, Rover) reads a status in headers only
 * when that frame ends the stream: headers followed by an empty DATA frame, as Armeria sends a
 * response of headers alone unless they are marked end of stream, reached Go clients as {@code
 * Internal: server closed the stream without sending trailers}.
 */
final class TrailersOnly {
  private static final MediaType GRPC = MediaType.parse("application/grpc");

  private TrailersOnly() {}

  static HttpResponse of(Status.Code code, String message) {
    return HttpResponse.of(ResponseHeaders.builder(HttpStatus.OK)
        .endOfStream(true)
        .contentType(GRPC)
        .add("grpc-status", Integer.toString(code.value()))
        .add("grpc-message", percentEncode(message))
        .build());
  }

  /** grpc-message is percent-encoded outside printable ASCII (and '%' itself). */
  private static String percentEncode(String message) {
    StringBuilder out = new StringBuilder(message.length());
    for (byte b : message.getBytes(StandardCharsets.UTF_8)) {
      if (b >= 0x20 && b < 0x7f && b != '%') {
        out.append((char) b);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }
}
