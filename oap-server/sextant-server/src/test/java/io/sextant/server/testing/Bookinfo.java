package io.sextant.server.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;

/**
 * A bookinfo-like traffic mix with known totals: the gateway calls productpage, which calls details
 * and reviews, which calls ratings over gRPC and mongodb over TCP. Every call is reported by both
 * sidecars (client and server side), except the gateway, which has no server side.
 */
public final class Bookinfo {
  public final List<HTTPServiceMeshMetric> http = new ArrayList<>();
  public final List<TCPServiceMeshMetric> tcp = new ArrayList<>();
  public final long time;

  public Bookinfo(long time) {
    this.time = time;
  }

  /** n calls from source to dest, latencies base+i*step ms, the first `failures` failing with 500. */
  public Bookinfo calls(String source, String sourcePod, String dest, String destPod, String endpoint, int n,
      int base, int step, int failures, Protocol protocol, boolean clientSide, boolean serverSide) {
    for (int i = 0; i < n; i++) {
      boolean failed = i < failures;
      for (DetectPoint dp : new DetectPoint[] {DetectPoint.client, DetectPoint.server}) {
        if ((dp == DetectPoint.client && !clientSide) || (dp == DetectPoint.server && !serverSide)) {
          continue;
        }
        http.add(HTTPServiceMeshMetric.newBuilder()
            .setStartTime(time + i).setEndTime(time + i + base + (long) i * step)
            .setSourceServiceName(source).setSourceServiceInstance(sourcePod)
            .setDestServiceName(dest).setDestServiceInstance(destPod)
            .setEndpoint(endpoint).setLatency(base + i * step)
            .setResponseCode(failed ? 500 : 200).setStatus(!failed)
            .setProtocol(protocol).setDetectPoint(dp).setTlsMode("mTLS")
            .setInternalErrorCode(failed ? "UF" : "")
            .setInternalRequestLatencyNanos(1000L * (i + 1)).setInternalResponseLatencyNanos(2000L * (i + 1))
            .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("pod").setValue(destPod))
            .build());
      }
    }
    return this;
  }

  public Bookinfo tcp(String source, String sourcePod, String dest, String destPod, int n, long received, long sent) {
    for (int i = 0; i < n; i++) {
      for (DetectPoint dp : new DetectPoint[] {DetectPoint.client, DetectPoint.server}) {
        tcp.add(TCPServiceMeshMetric.newBuilder()
            .setStartTime(time + i).setEndTime(time + i + 5)
            .setSourceServiceName(source).setSourceServiceInstance(sourcePod)
            .setDestServiceName(dest).setDestServiceInstance(destPod)
            .setDetectPoint(dp).setTlsMode("NONE")
            .setReceivedBytes(received).setSentBytes(sent)
            .build());
      }
    }
    return this;
  }

  public static Bookinfo standard(long time) {
    return new Bookinfo(time)
        .calls("istio-ingressgateway", "gw-0", "productpage", "productpage-v1-0", "GET:/productpage",
            10, 10, 10, 2, Protocol.HTTP, true, true)
        .calls("productpage", "productpage-v1-0", "details", "details-v1-0", "GET:/details/0",
            6, 5, 1, 0, Protocol.HTTP, true, true)
        .calls("productpage", "productpage-v1-0", "reviews", "reviews-v1-0", "GET:/reviews/0",
            4, 30, 10, 1, Protocol.HTTP, true, true)
        .calls("productpage", "productpage-v1-0", "reviews", "reviews-v2-0", "GET:/reviews/0",
            4, 30, 10, 0, Protocol.HTTP, true, true)
        .calls("reviews", "reviews-v2-0", "ratings", "ratings-v1-0", "/ratings.Ratings/Get",
            4, 3, 1, 0, Protocol.gRPC, true, true)
        .tcp("reviews", "reviews-v2-0", "mongodb", "mongodb-0", 3, 1000, 200);
  }

  /** All records, batched `batch` per message, HTTP first. */
  public List<ServiceMeshMetrics> messages(int batch) {
    List<ServiceMeshMetrics> out = new ArrayList<>();
    for (int i = 0; i < http.size(); i += batch) {
      out.add(ServiceMeshMetrics.newBuilder().setHttpMetrics(HTTPServiceMeshMetrics.newBuilder()
          .addAllMetrics(http.subList(i, Math.min(http.size(), i + batch)))).build());
    }
    for (int i = 0; i < tcp.size(); i += batch) {
      out.add(ServiceMeshMetrics.newBuilder().setTcpMetrics(TCPServiceMeshMetrics.newBuilder()
          .addAllMetrics(tcp.subList(i, Math.min(tcp.size(), i + batch)))).build());
    }
    return out;
  }
}
