package io.sextant.receiver.envoy.metrics;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.metrics.v3.MetricsServiceGrpc;
import io.envoyproxy.envoy.service.metrics.v3.StreamMetricsMessage;
import io.grpc.Status;
import io.prometheus.client.Metrics;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.testkit.receiver.ReceiverContractTest;
import java.util.List;

/**
 * The receiver contract for Envoy's metrics service: snapshots of server gauges from a proxy with
 * Istio's workload metadata. A snapshot from a proxy whose node says nothing of its workload is the
 * bad record. Envoy never reads the answer, so rejections end the stream OK.
 */
class EnvoyMetricsReceiverContractTest extends ReceiverContractTest<StreamMetricsMessage> {
  private static final long TIME = System.currentTimeMillis();
  private static final Node PRODUCTPAGE = Node.newBuilder().setId("sidecar~10.0.0.1~productpage-v1-0.default~x")
      .setMetadata(Struct.newBuilder()
          .putFields("NAME", Value.newBuilder().setStringValue("productpage-v1-0").build())
          .putFields("NAMESPACE", Value.newBuilder().setStringValue("default").build())
          .putFields("WORKLOAD_NAME", Value.newBuilder().setStringValue("productpage-v1").build()))
      .build();
  private static final Node ANONYMOUS = Node.newBuilder().setId("sidecar~10.0.0.9~x.y~y.svc.cluster.local").build();

  @Override
  protected ReceiverFactory factory() {
    return new EnvoyMetricsReceiverFactory();
  }

  @Override
  protected boolean rejectionsFailTheStream() {
    return false;
  }

  @Override
  protected Status send(String uri, List<StreamMetricsMessage> messages) throws Exception {
    MetricsServiceGrpc.MetricsServiceStub stub =
        GrpcClients.builder(uri).build(MetricsServiceGrpc.MetricsServiceStub.class);
    return clientStream(stub::streamMetrics, messages);
  }

  /** Heap size: two samples (used and max used) per snapshot. */
  private static StreamMetricsMessage snapshot(Node node, long time) {
    StreamMetricsMessage.Builder m = StreamMetricsMessage.newBuilder();
    if (node != null) {
      m.setIdentifier(StreamMetricsMessage.Identifier.newBuilder().setNode(node));
    }
    return m.addEnvoyMetrics(Metrics.MetricFamily.newBuilder().setName("server.memory_heap_size")
        .setType(Metrics.MetricType.GAUGE)
        .addMetric(Metrics.Metric.newBuilder().setGauge(Metrics.Gauge.newBuilder().setValue(1e8)).setTimestampMs(time)))
        .build();
  }

  @Override
  protected Batch<StreamMetricsMessage> goodBatch() {
    return Batch.good(List.of(snapshot(PRODUCTPAGE, TIME), snapshot(null, TIME + 10_000)), 4);
  }

  @Override
  protected Batch<StreamMetricsMessage> batchWithOneBadRecord() {
    return Batch.withOneBad(List.of(snapshot(PRODUCTPAGE, TIME), snapshot(ANONYMOUS, TIME + 10_000),
        snapshot(PRODUCTPAGE, TIME + 20_000)), 4, "unknown_node");
  }
}
