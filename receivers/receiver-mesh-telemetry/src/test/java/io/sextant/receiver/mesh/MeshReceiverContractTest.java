package io.sextant.receiver.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.testkit.receiver.ReceiverContractTest;
import java.util.List;
import java.util.Map;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetricServiceGrpc;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The receiver contract for SkyWalking's mesh telemetry, with HTTP and with TCP records. */
class MeshReceiverContractTest {
  private static final long TIME = System.currentTimeMillis();

  abstract static class Mesh extends ReceiverContractTest<ServiceMeshMetrics> {
    @Override
    protected ReceiverFactory factory() {
      return new MeshReceiverFactory();
    }

    @Override
    protected Status send(String uri, List<ServiceMeshMetrics> messages) throws Exception {
      ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub stub =
          GrpcClients.builder(uri).build(ServiceMeshMetricServiceGrpc.ServiceMeshMetricServiceStub.class);
      return clientStream(stub::collect, messages);
    }
  }

  @Nested
  class Http extends Mesh {
    private HTTPServiceMeshMetric call(String endpoint) {
      return HTTPServiceMeshMetric.newBuilder().setStartTime(TIME).setEndTime(TIME + 10)
          .setSourceServiceName("client").setSourceServiceInstance("client-0")
          .setDestServiceName("server").setDestServiceInstance("server-0").setEndpoint(endpoint)
          .setLatency(10).setResponseCode(200).setStatus(true).setDetectPoint(DetectPoint.server).build();
    }

    private ServiceMeshMetrics message(HTTPServiceMeshMetric... calls) {
      return ServiceMeshMetrics.newBuilder()
          .setHttpMetrics(HTTPServiceMeshMetrics.newBuilder().addAllMetrics(List.of(calls))).build();
    }

    @Override
    protected Batch<ServiceMeshMetrics> goodBatch() {
      return Batch.good(List.of(message(call("GET:/a"), call("GET:/b")), message(call("GET:/c"))), 3);
    }

    @Test
    void everyFieldArrivesAsSent() throws Exception {
      HTTPServiceMeshMetric full = HTTPServiceMeshMetric.newBuilder().setStartTime(TIME).setEndTime(TIME + 7)
          .setSourceServiceName("客户端").setSourceServiceInstance("client-0").setDestServiceName("naïve")
          .setDestServiceInstance("naïve-0").setEndpoint("GET:/ä").setLatency(42).setResponseCode(503)
          .setStatus(false).setProtocol(Protocol.gRPC).setDetectPoint(DetectPoint.client).setTlsMode("mTLS")
          .setInternalErrorCode("UF").setInternalRequestLatencyNanos(1234).setInternalResponseLatencyNanos(5678)
          .addSourceInstanceProperties(KeyStringValuePair.newBuilder().setKey("hostname").setValue("pod-ä"))
          .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("ipv4s").setValue("10.0.0.7"))
          .addDestInstanceProperties(KeyStringValuePair.newBuilder().setKey("language").setValue("Go"))
          .build();
      // Twice: the second time every name is a known one.
      assertThat(send(uri(), List.of(message(full, full)))).isEqualTo(Status.OK);
      CallRecord expected = new CallRecord(TIME, TIME + 7, "客户端", "client-0", "naïve", "naïve-0", "GET:/ä", 42,
          503, false, CallProtocol.GRPC, io.sextant.api.model.DetectPoint.CLIENT, "mTLS", "UF", 1234, 5678,
          Layer.MESH, Map.of("hostname", "pod-ä"), Map.of("ipv4s", "10.0.0.7", "language", "Go"));
      assertThat(sink.accepted()).hasSize(2).allSatisfy(r -> assertThat(r).isEqualTo(expected));
    }

    @Override
    protected Batch<ServiceMeshMetrics> batchWithOneBadRecord() {
      HTTPServiceMeshMetric noDestination = call("GET:/x").toBuilder().setDestServiceName("").build();
      return Batch.withOneBad(List.of(message(call("GET:/a"), noDestination, call("GET:/b"))), 2,
          "missing_dest_service");
    }
  }

  @Nested
  class Tcp extends Mesh {
    private TCPServiceMeshMetric flow(long sent) {
      return TCPServiceMeshMetric.newBuilder().setStartTime(TIME).setEndTime(TIME + 10)
          .setSourceServiceName("client").setSourceServiceInstance("client-0")
          .setDestServiceName("db").setDestServiceInstance("db-0")
          .setReceivedBytes(100).setSentBytes(sent).setDetectPoint(DetectPoint.client).build();
    }

    private ServiceMeshMetrics message(TCPServiceMeshMetric... flows) {
      return ServiceMeshMetrics.newBuilder()
          .setTcpMetrics(TCPServiceMeshMetrics.newBuilder().addAllMetrics(List.of(flows))).build();
    }

    @Override
    protected Batch<ServiceMeshMetrics> goodBatch() {
      return Batch.good(List.of(message(flow(1), flow(2)), message(flow(3))), 3);
    }

    @Override
    protected Batch<ServiceMeshMetrics> batchWithOneBadRecord() {
      return Batch.withOneBad(List.of(message(flow(1)), message(flow(-5), flow(2))), 2, "negative_bytes");
    }
  }
}
