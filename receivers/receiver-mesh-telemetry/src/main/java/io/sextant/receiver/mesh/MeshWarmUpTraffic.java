package io.sextant.receiver.mesh;

import io.sextant.api.receiver.WarmUpTraffic;
import io.sextant.receiver.common.ClientStreamRound;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;

/**
 * A small mesh's telemetry as Satellite or an Envoy metrics adapter sends it: both sides of HTTP,
 * gRPC and TCP calls between a few services with two pods each, some failing, with instance
 * properties, in messages of {@value #RECORDS_PER_MESSAGE} records on {@value #STREAMS} streams.
 */
final class MeshWarmUpTraffic implements WarmUpTraffic {
  private static final int SERVICES = 6;
  private static final int ENDPOINTS = 8;
  private static final int STREAMS = 2;
  private static final int MESSAGES_PER_STREAM = 20;
  private static final int RECORDS_PER_MESSAGE = 20;

  private final SplittableRandom random = new SplittableRandom(24);

  @Override
  public int round(Stubs stubs) throws InterruptedException {
    ServiceMeshMetricServiceStub stub = stubs.stub(ServiceMeshMetricServiceStub.class);
    int records = 0;
    for (int s = 0; s < STREAMS; s++) {
      List<ServiceMeshMetrics> messages = new ArrayList<>();
      for (int m = 0; m < MESSAGES_PER_STREAM; m++) {
        messages.add(m % 4 == 3 ? tcpMessage() : httpMessage());
        records += RECORDS_PER_MESSAGE;
      }
      ClientStreamRound.send(stub::collect, messages);
    }
    return records;
  }

  private ServiceMeshMetrics httpMessage() {
    HTTPServiceMeshMetrics.Builder http = HTTPServiceMeshMetrics.newBuilder();
    long now = System.currentTimeMillis();
    for (int i = 0; i < RECORDS_PER_MESSAGE; i++) {
      int from = random.nextInt(SERVICES);
      int to = (from + 1 + random.nextInt(SERVICES - 1)) % SERVICES;
      int latency = 1 + random.nextInt(200);
      boolean failed = random.nextInt(50) == 0;
      boolean grpc = to % 3 == 0;
      HTTPServiceMeshMetric.Builder b = HTTPServiceMeshMetric.newBuilder()
          .setStartTime(now - latency)
          .setEndTime(now)
          .setSourceServiceName(service(from))
          .setSourceServiceInstance(pod(from))
          .setDestServiceName(service(to))
          .setDestServiceInstance(pod(to))
          .setEndpoint((grpc ? "/warmup.Items/Get" : "/api/items/") + random.nextInt(ENDPOINTS))
          .setLatency(latency)
          .setResponseCode(failed ? 503 : 200)
          .setStatus(!failed)
          .setProtocol(grpc ? Protocol.gRPC : Protocol.HTTP)
          .setDetectPoint(i % 2 == 0 ? DetectPoint.client : DetectPoint.server)
          .setTlsMode("mTLS")
          .setInternalErrorCode(failed ? "UF" : "")
          .setInternalRequestLatencyNanos(random.nextInt(400_000))
          .setInternalResponseLatencyNanos(random.nextInt(400_000))
          .addAllSourceInstanceProperties(properties(from))
          .addAllDestInstanceProperties(properties(to));
      http.addMetrics(b);
    }
    return ServiceMeshMetrics.newBuilder().setHttpMetrics(http).build();
  }

  private ServiceMeshMetrics tcpMessage() {
    TCPServiceMeshMetrics.Builder tcp = TCPServiceMeshMetrics.newBuilder();
    long now = System.currentTimeMillis();
    for (int i = 0; i < RECORDS_PER_MESSAGE; i++) {
      int from = random.nextInt(SERVICES);
      int to = (from + 1 + random.nextInt(SERVICES - 1)) % SERVICES;
      int latency = 1 + random.nextInt(50);
      tcp.addMetrics(TCPServiceMeshMetric.newBuilder()
          .setStartTime(now - latency)
          .setEndTime(now)
          .setSourceServiceName(service(from))
          .setSourceServiceInstance(pod(from))
          .setDestServiceName(service(to))
          .setDestServiceInstance(pod(to))
          .setDetectPoint(i % 2 == 0 ? DetectPoint.client : DetectPoint.server)
          .setTlsMode("mTLS")
          .setInternalRequestLatencyNanos(random.nextInt(400_000))
          .setInternalResponseLatencyNanos(random.nextInt(400_000))
          .setSentBytes(random.nextInt(100_000))
          .setReceivedBytes(random.nextInt(100_000))
          .addAllSourceInstanceProperties(properties(from))
          .addAllDestInstanceProperties(properties(to)));
    }
    return ServiceMeshMetrics.newBuilder().setTcpMetrics(tcp).build();
  }

  private static String service(int i) {
    return "warm-up-" + i + ".sextant";
  }

  private String pod(int service) {
    return "warm-up-" + service + "-" + random.nextInt(2);
  }

  private static List<KeyStringValuePair> properties(int service) {
    return List.of(KeyStringValuePair.newBuilder().setKey("namespace").setValue("sextant").build(),
        KeyStringValuePair.newBuilder().setKey("ipv4s").setValue("10.0.0." + (service + 1)).build());
  }
}
