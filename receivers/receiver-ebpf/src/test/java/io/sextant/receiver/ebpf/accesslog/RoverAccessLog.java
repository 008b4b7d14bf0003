package io.sextant.receiver.ebpf.accesslog;

import com.linecorp.armeria.client.grpc.GrpcClients;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.sextant.testkit.receiver.ClientStreams;
import java.time.Duration;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.common.v3.Instant;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnectionTLSMode;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocol;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequest;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolResponse;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelAcceptOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelCloseOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelConnectOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelLog;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadL2Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadL3Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadL4Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteL2Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteL3Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteL4Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteOperation;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolLogs;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolType;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ConnectionAddress;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogNodeInfo;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogNodeNetInterface;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFOffsetTimestamp;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFTimestamp;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.IPAddress;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.KubernetesProcessAddress;

/**
 * Messages shaped as Rover 0.7's access-log sender ({@code pkg/accesslog/runner.go}) builds them:
 * the node on a stream's first message, a connection on the first message of each connection, its
 * kernel logs, then one message per decoded HTTP exchange with the kernel logs that carried it.
 * Timestamps are nanosecond offsets from the node's boot.
 */
public final class RoverAccessLog {
  private RoverAccessLog() {}

  public static EBPFAccessLogNodeInfo node(long bootSeconds, String cluster) {
    return EBPFAccessLogNodeInfo.newBuilder().setName("node-1").setClusterName(cluster)
        .setBootTime(Instant.newBuilder().setSeconds(bootSeconds))
        .addNetInterfaces(EBPFAccessLogNodeNetInterface.newBuilder().setIndex(2).setMtu(1500).setName("eth0"))
        .build();
  }

  public static ConnectionAddress pod(String service, String pod, int port) {
    return ConnectionAddress.newBuilder().setKubernetes(KubernetesProcessAddress.newBuilder().setServiceName(service)
        .setPodName(pod).setContainerName("app").setProcessName("java").setPort(port)).build();
  }

  public static ConnectionAddress ip(String host, int port) {
    return ConnectionAddress.newBuilder().setIp(IPAddress.newBuilder().setHost(host).setPort(port)).build();
  }

  public static AccessLogConnection connection(ConnectionAddress local, ConnectionAddress remote, DetectPoint role,
      AccessLogProtocolType protocol, boolean tls) {
    return AccessLogConnection.newBuilder().setLocal(local).setRemote(remote).setRole(role).setProtocol(protocol)
        .setTlsMode(tls ? AccessLogConnectionTLSMode.TLS : AccessLogConnectionTLSMode.Plain).build();
  }

  public static EBPFTimestamp at(long offsetNanos) {
    return EBPFTimestamp.newBuilder().setOffset(EBPFOffsetTimestamp.newBuilder().setOffset(offsetNanos)).build();
  }

  public static AccessLogKernelLog connect(long start, long end, boolean success) {
    return AccessLogKernelLog.newBuilder().setConnect(AccessLogKernelConnectOperation.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end)).setSuccess(success)).build();
  }

  public static AccessLogKernelLog accept(long start, long end) {
    return AccessLogKernelLog.newBuilder().setAccept(AccessLogKernelAcceptOperation.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end))).build();
  }

  public static AccessLogKernelLog close(long start, long end, boolean success) {
    return AccessLogKernelLog.newBuilder().setClose(AccessLogKernelCloseOperation.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end)).setSuccess(success)).build();
  }

  /** A write of {@code bytes} in {@code packets} packets, {@code retransmits} of them sent again. */
  public static AccessLogKernelLog write(long start, long end, long bytes, long packets, long retransmits) {
    return AccessLogKernelLog.newBuilder().setWrite(AccessLogKernelWriteOperation.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end))
        .setL4Metrics(AccessLogKernelWriteL4Metrics.newBuilder().setTotalDuration((end - start) / 2)
            .setTotalTransmitPackageCount(packets).setTotalRetransmitPackageCount(retransmits)
            .setTotalPackageSize(bytes))
        .setL3Metrics(AccessLogKernelWriteL3Metrics.newBuilder().setTotalDuration((end - start) / 4)
            .setTotalLocalDuration(100).setTotalOutputDuration(200))
        .setL2Metrics(AccessLogKernelWriteL2Metrics.newBuilder().setTotalDuration((end - start) / 8).setIfindex(2)
            .setTotalEnterQueueBufferCount(packets).setTotalReadySendDuration(300)
            .setTotalNetDeviceSendDuration(400)))
        .build();
  }

  public static AccessLogKernelLog read(long start, long end, long bytes, int packets) {
    return AccessLogKernelLog.newBuilder().setRead(AccessLogKernelReadOperation.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end))
        .setL2Metrics(AccessLogKernelReadL2Metrics.newBuilder().setIfindex(2).setTotalPackageCount(packets)
            .setTotalPackageSize(bytes).setTotalPackageToQueueDuration(500).setTotalRcvPackageFromQueueDuration(600))
        .setL3Metrics(AccessLogKernelReadL3Metrics.newBuilder().setTotalDuration((end - start) / 4)
            .setTotalRecvDuration(700).setTotalLocalDuration(800))
        .setL4Metrics(AccessLogKernelReadL4Metrics.newBuilder().setTotalDuration((end - start) / 2)))
        .build();
  }

  public static AccessLogProtocolLogs http(AccessLogHTTPProtocolRequestMethod method, String path, int status,
      long start, long end) {
    return AccessLogProtocolLogs.newBuilder().setHttp(AccessLogHTTPProtocol.newBuilder()
        .setStartTime(at(start)).setEndTime(at(end))
        .setRequest(AccessLogHTTPProtocolRequest.newBuilder().setMethod(method).setPath(path)
            .setSizeOfHeadersBytes(120).setSizeOfBodyBytes(0))
        .setResponse(AccessLogHTTPProtocolResponse.newBuilder().setStatusCode(status).setSizeOfHeadersBytes(80)
            .setSizeOfBodyBytes(1000)))
        .build();
  }

  /** One service on a real socket, for a service built with ports a factory does not give (a resolver). */
  public static final class Served implements AutoCloseable {
    private final Server server;

    public Served(ServerServiceDefinition service) {
      server = Server.builder().http(0).service(GrpcService.builder().addService(service).build())
          .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO).build();
      server.start().join();
    }

    public EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub client() {
      return GrpcClients.builder("http://127.0.0.1:" + server.activeLocalPort())
          .build(EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub.class);
    }

    @Override
    public void close() {
      server.stop().join();
    }
  }

  /** Sends one stream as Rover does and waits for its end: OK, or the error's status. */
  public static Status send(EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub stub,
      List<EBPFAccessLogMessage> messages) throws Exception {
    return ClientStreams.send(stub::collect, messages);
  }
}
