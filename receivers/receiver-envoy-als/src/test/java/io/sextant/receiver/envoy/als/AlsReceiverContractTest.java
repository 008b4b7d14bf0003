package io.sextant.receiver.envoy.als;

import com.google.protobuf.Any;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import com.linecorp.armeria.client.grpc.GrpcClients;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.ConnectionProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.service.accesslog.v3.AccessLogServiceGrpc;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.grpc.Status;
import io.sextant.api.plugin.ReceiverFactory;
import io.sextant.testkit.receiver.ReceiverContractTest;
import java.util.List;
import org.junit.jupiter.api.Nested;

/**
 * The receiver contract for Envoy's Access Log Service, with HTTP and with TCP entries shaped as
 * Istio's sidecars send them (workload metadata on the node, the peer's in filter state). Envoy
 * never reads the answer, so rejections end the stream OK.
 */
class AlsReceiverContractTest {
  private static final long TIME = System.currentTimeMillis();

  private static Value str(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  /** Istio's workload metadata, as on a proxy's node and in the metadata exchange. */
  private static Struct workload(String pod, String app) {
    return Struct.newBuilder().putFields("NAME", str(pod)).putFields("NAMESPACE", str("default"))
        .putFields("LABELS", Value.newBuilder().setStructValue(Struct.newBuilder()
            .putFields("app", str(app))).build())
        .build();
  }

  private static AccessLogCommon.Builder common(String cluster) {
    return AccessLogCommon.newBuilder().setStartTime(Timestamp.newBuilder().setSeconds(TIME / 1000))
        .setUpstreamCluster(cluster);
  }

  private static StreamAccessLogsMessage.Builder message(boolean identified) {
    StreamAccessLogsMessage.Builder b = StreamAccessLogsMessage.newBuilder();
    if (identified) {
      Node reviews = Node.newBuilder().setId("sidecar~10.0.0.2~reviews-v1-0.default~default.svc.cluster.local")
          .setMetadata(workload("reviews-v1-0", "reviews")).build();
      b.setIdentifier(StreamAccessLogsMessage.Identifier.newBuilder().setNode(reviews).setLogName("als"));
    }
    return b;
  }

  abstract static class Als extends ReceiverContractTest<StreamAccessLogsMessage> {
    @Override
    protected ReceiverFactory factory() {
      return new AlsReceiverFactory();
    }

    @Override
    protected boolean rejectionsFailTheStream() {
      return false;
    }

    @Override
    protected Status send(String uri, List<StreamAccessLogsMessage> messages) throws Exception {
      AccessLogServiceGrpc.AccessLogServiceStub stub =
          GrpcClients.builder(uri).build(AccessLogServiceGrpc.AccessLogServiceStub.class);
      return clientStream(stub::streamAccessLogs, messages);
    }
  }

  @Nested
  class Http extends Als {
    /** A call into reviews from productpage: one server-side record. */
    private HTTPAccessLogEntry inbound(String path) {
      return HTTPAccessLogEntry.newBuilder()
          .setCommonProperties(common("inbound|9080||")
              .putFilterStateObjects("downstream_peer", Any.pack(workload("productpage-v1-0", "productpage"))))
          .setRequest(HTTPRequestProperties.newBuilder().setRequestMethod(RequestMethod.GET).setPath(path))
          .setResponse(HTTPResponseProperties.newBuilder().setResponseCode(UInt32Value.of(200)))
          .build();
    }

    private StreamAccessLogsMessage message(boolean identified, HTTPAccessLogEntry... entries) {
      return AlsReceiverContractTest.message(identified).setHttpLogs(
          StreamAccessLogsMessage.HTTPAccessLogEntries.newBuilder().addAllLogEntry(List.of(entries))).build();
    }

    @Override
    protected Batch<StreamAccessLogsMessage> goodBatch() {
      return Batch.good(List.of(message(true, inbound("/a"), inbound("/b")), message(false, inbound("/c"))), 3);
    }

    @Override
    protected Batch<StreamAccessLogsMessage> batchWithOneBadRecord() {
      return Batch.withOneBad(List.of(message(true, inbound("/a"), HTTPAccessLogEntry.getDefaultInstance()),
          message(false, inbound("/b"))), 2, "missing_common_properties");
    }
  }

  @Nested
  class Tcp extends Als {
    /** A connection out of reviews to mongodb: one client-side flow. */
    private TCPAccessLogEntry outbound(long received) {
      return TCPAccessLogEntry.newBuilder()
          .setCommonProperties(common("outbound|27017||mongodb.default.svc.cluster.local")
              .putFilterStateObjects("upstream_peer", Any.pack(workload("mongodb-v1-0", "mongodb"))))
          .setConnectionProperties(ConnectionProperties.newBuilder().setReceivedBytes(received).setSentBytes(10))
          .build();
    }

    private StreamAccessLogsMessage message(boolean identified, TCPAccessLogEntry... entries) {
      return AlsReceiverContractTest.message(identified).setTcpLogs(
          StreamAccessLogsMessage.TCPAccessLogEntries.newBuilder().addAllLogEntry(List.of(entries))).build();
    }

    @Override
    protected Batch<StreamAccessLogsMessage> goodBatch() {
      return Batch.good(List.of(message(true, outbound(1), outbound(2)), message(false, outbound(3))), 3);
    }

    @Override
    protected Batch<StreamAccessLogsMessage> batchWithOneBadRecord() {
      return Batch.withOneBad(List.of(message(true, outbound(1)),
          message(false, TCPAccessLogEntry.getDefaultInstance(), outbound(2))), 2, "missing_common_properties");
    }
  }
}
