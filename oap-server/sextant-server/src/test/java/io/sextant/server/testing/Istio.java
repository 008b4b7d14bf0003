package io.sextant.server.testing;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.ConnectionProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.ResponseFlags;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;

/**
 * Access-log entries shaped as Istio's sidecars and gateways send them: node metadata with the
 * workload's labels, peer metadata in filter state (Istio >= 1.24 keys, Struct values), inbound and
 * outbound cluster names, mTLS certificates, Envoy's timing fields.
 */
public final class Istio {
  private Istio() {}

  public record Pod(String name, String namespace, String app, String ip) {
    public Struct metadata() {
      return Struct.newBuilder()
          .putFields("NAME", str(name))
          .putFields("NAMESPACE", str(namespace))
          .putFields("WORKLOAD_NAME", str(app + "-v1"))
          .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
              .putFields("app", str(app))
              .putFields("service.istio.io/canonical-name", str(app))
              .putFields("version", str("v1"))).build())
          .build();
    }

    public Node sidecar() {
      return Node.newBuilder()
          .setId("sidecar~" + ip + "~" + name + "." + namespace + "~" + namespace + ".svc.cluster.local")
          .setCluster(app + "." + namespace).setMetadata(metadata()).build();
    }

    public Node gateway() {
      return Node.newBuilder()
          .setId("router~" + ip + "~" + name + "." + namespace + "~" + namespace + ".svc.cluster.local")
          .setCluster(app + "." + namespace).setMetadata(metadata()).build();
    }

    public Any peer() {
      return Any.pack(metadata());
    }
  }

  private static Value str(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  public static Duration ms(long millis) {
    return Duration.newBuilder().setSeconds(millis / 1000).setNanos((int) (millis % 1000) * 1_000_000).build();
  }

  private static AccessLogCommon.Builder common(long start, String cluster, Pod downstream, Pod upstream) {
    return AccessLogCommon.newBuilder()
        .setStartTime(Timestamp.newBuilder().setSeconds(start / 1000).setNanos((int) (start % 1000) * 1_000_000))
        .setUpstreamCluster(cluster)
        .setDownstreamRemoteAddress(addr(downstream.ip(), 40000))
        .setUpstreamRemoteAddress(addr(upstream.ip(), 9080))
        .setTlsProperties(TLSProperties.newBuilder()
            .setLocalCertificateProperties(TLSProperties.CertificateProperties.newBuilder().addSubjectAltName(
                TLSProperties.CertificateProperties.SubjectAltName.newBuilder()
                    .setUri("spiffe://cluster.local/ns/x/sa/a")))
            .setPeerCertificateProperties(TLSProperties.CertificateProperties.newBuilder().addSubjectAltName(
                TLSProperties.CertificateProperties.SubjectAltName.newBuilder()
                    .setUri("spiffe://cluster.local/ns/y/sa/b"))));
  }

  public static Address addr(String ip, int port) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port)).build();
  }

  /**
   * An inbound request as the callee's sidecar logs it: the caller is in downstream_peer; latency
   * is time to the last byte sent downstream.
   */
  public static HTTPAccessLogEntry inbound(long start, Pod caller, Pod callee, String path, int code, long latencyMs) {
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start, "inbound|9080||", caller, callee)
            .putFilterStateObjects("downstream_peer", caller.peer())
            .setTimeToFirstUpstreamTxByte(Duration.newBuilder().setNanos(150_000))
            .setTimeToFirstUpstreamRxByte(ms(latencyMs - 1))
            .setTimeToFirstDownstreamTxByte(
                Duration.newBuilder().setSeconds(0).setNanos((int) ((latencyMs - 1) * 1_000_000 + 80_000)))
            .setTimeToLastDownstreamTxByte(ms(latencyMs)))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setScheme("http")
            .setAuthority(callee.app() + ":9080").setPath(path))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(code)))
        .build();
  }

  /**
   * An outbound request as the caller's sidecar (or a gateway) logs it: the callee is in
   * upstream_peer; latency is first byte sent upstream to last byte received from it.
   */
  public static HTTPAccessLogEntry outbound(long start, Pod caller, Pod callee, String path, int code, long latencyMs) {
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start,
            "outbound|9080||" + callee.app() + "." + callee.namespace() + ".svc.cluster.local",
            caller, callee)
            .putFilterStateObjects("upstream_peer", callee.peer())
            .setTimeToFirstUpstreamTxByte(ms(1))
            .setTimeToLastUpstreamRxByte(ms(1 + latencyMs))
            .setTimeToLastDownstreamTxByte(ms(2 + latencyMs)))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setScheme("http")
            .setAuthority(callee.app() + ":9080").setPath(path))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(code)))
        .build();
  }

  /** An outbound request whose peer is unknown (no metadata exchange, e.g. a non-mesh service). */
  public static HTTPAccessLogEntry outboundUnknown(long start, Pod caller, String ip) {
    return HTTPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start, "outbound|80||external.example", caller, new Pod("?", "?", "?", ip))
            .setTimeToLastUpstreamRxByte(ms(5)))
        .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setPath("/"))
        .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(200)))
        .build();
  }

  /** A request that never got a response: no code, upstream connection failure flag. */
  public static HTTPAccessLogEntry outboundFailed(long start, Pod caller, Pod callee, String path) {
    HTTPAccessLogEntry ok = outbound(start, caller, callee, path, 200, 3);
    return ok.toBuilder()
        .setResponse(HTTPResponseProperties.getDefaultInstance())
        .setCommonProperties(ok.getCommonProperties().toBuilder()
            .setResponseFlags(ResponseFlags.newBuilder().setUpstreamConnectionFailure(true)))
        .build();
  }

  /** A TCP connection out of the caller's sidecar to the callee, with bytes. */
  public static TCPAccessLogEntry tcpOutbound(long start, Pod caller, Pod callee, long received, long sent) {
    return TCPAccessLogEntry.newBuilder()
        .setCommonProperties(common(start,
            "outbound|27017||" + callee.app() + "." + callee.namespace() + ".svc.cluster.local",
            caller, callee).putFilterStateObjects("upstream_peer", callee.peer()).setDuration(ms(20)))
        .setConnectionProperties(ConnectionProperties.newBuilder().setReceivedBytes(received).setSentBytes(sent))
        .build();
  }

}
