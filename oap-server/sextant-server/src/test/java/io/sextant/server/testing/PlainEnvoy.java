package io.sextant.server.testing;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.ConnectionProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;

/**
 * Access-log entries as Envoy writes them without Istio's metadata exchange: only addresses say who
 * is who. As in a real mesh, an inbound entry has the caller's pod IP as downstream remote address
 * and the proxy's own pod IP as downstream local address; an outbound entry has the application's
 * pod IP as downstream remote address, the callee's Service (cluster) IP as downstream local
 * address and the callee's pod IP as upstream remote address; a gateway entry has the client as
 * downstream remote, the gateway pod as downstream local and the backend pod as upstream remote.
 */
public final class PlainEnvoy {
  private PlainEnvoy() {}

  /** The addresses of one logged connection: downstream remote and local, upstream remote. */
  public record Addresses(String downstreamRemote, String downstreamLocal, int localPort, String upstreamRemote) {}

  public static Address addr(String ip, int port) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port)).build();
  }

  public static Duration ms(long millis) {
    return Duration.newBuilder().setSeconds(millis / 1000).setNanos((int) (millis % 1000) * 1_000_000).build();
  }

  private static AccessLogCommon.Builder common(long start, String cluster, Addresses a) {
    return AccessLogCommon.newBuilder()
        .setStartTime(Timestamp.newBuilder().setSeconds(start / 1000).setNanos((int) (start % 1000) * 1_000_000))
        .setUpstreamCluster(cluster)
        .setDownstreamRemoteAddress(addr(a.downstreamRemote(), 51234))
        .setDownstreamLocalAddress(addr(a.downstreamLocal(), a.localPort()))
        .setUpstreamRemoteAddress(addr(a.upstreamRemote(), a.localPort()))
        .setUpstreamLocalAddress(addr("127.0.0.6", 40000));
  }

  /** An HTTP request; {@code cluster} is {@code inbound|port||} or {@code outbound|port||host}. */
  public static HTTPAccessLogEntry http(long start, String cluster, Addresses a, String path, int code,
      long latencyMs) {
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start, cluster, a)
            .setTimeToFirstUpstreamTxByte(ms(1))
            .setTimeToLastUpstreamRxByte(ms(latencyMs))
            .setTimeToLastDownstreamTxByte(ms(latencyMs)))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setScheme("http")
            .setPath(path))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(code)))
        .build();
  }

  /** A TCP connection with its byte counts. */
  public static TCPAccessLogEntry tcp(long start, String cluster, Addresses a, long received, long sent) {
    return TCPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start, cluster, a).setDuration(ms(20)))
        .setConnectionProperties(ConnectionProperties.newBuilder().setReceivedBytes(received).setSentBytes(sent))
        .build();
  }
}
