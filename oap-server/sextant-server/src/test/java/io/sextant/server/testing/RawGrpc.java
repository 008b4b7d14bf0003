package io.sextant.server.testing;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaders;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.RequestHeadersBuilder;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A gRPC call over h2c with exactly the given headers and body bytes, as they go on the wire: for
 * what a stub would never send (a message cut off, a header spelt as a client spells it).
 */
public final class RawGrpc {
  private RawGrpc() {}

  /** The call's {@code grpc-status} and, if any, its decoded {@code grpc-message}. */
  public static Map<String, String> call(int port, String method, Map<String, String> headers, byte[] body) {
    RequestHeadersBuilder h = RequestHeaders.builder(HttpMethod.POST, "/" + method)
        .contentType(MediaType.parse("application/grpc")).add("te", "trailers");
    headers.forEach(h::add);
    AggregatedHttpResponse response = WebClient.of("h2c://127.0.0.1:" + port).execute(h.build(), HttpData.wrap(body))
        .aggregate().join();
    HttpHeaders status = response.trailers().contains("grpc-status") ? response.trailers() : response.headers();
    Map<String, String> answer = new HashMap<>();
    answer.put("grpc-status", status.get("grpc-status"));
    if (status.contains("grpc-message")) {
      answer.put("grpc-message", URLDecoder.decode(status.get("grpc-message"), StandardCharsets.UTF_8));
    }
    return answer;
  }
}
