package io.sextant.server.rover;

import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.accept;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.close;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connect;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.connection;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.http;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.node;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.pod;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.read;
import static io.sextant.receiver.ebpf.accesslog.RoverAccessLog.write;

import com.linecorp.armeria.client.grpc.GrpcClients;
import io.grpc.Status;
import io.sextant.receiver.ebpf.accesslog.RoverAccessLog;
import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocolRequestMethod;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelLog;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelReadL3Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelWriteL3Metrics;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolType;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;

/**
 * Rover's access log for the K8S_SERVICE dashboards: {@code ratings-api} calls {@link
 * RoverDashboardTraffic#K8S_POD}'s service over HTTP/1.1, both pods watched (the client's Rover and
 * the server's), with an answer of every status class and every kernel operation, each L2-L4 number
 * set, so every {@code kubernetes_service_*} metric a dashboard shows has a value.
 */
public final class RoverAccessLogTraffic {
  public static final String CLIENT = "ratings-api";
  public static final String CLIENT_POD = "ratings-api-0";
  public static final String SERVER = RoverDashboardTraffic.K8S_POD.service();
  public static final String SERVER_POD = RoverDashboardTraffic.K8S_POD.pod();
  /** The endpoints the server side names. */
  public static final List<String> PATHS = List.of("/ratings/0", "/ratings/1");
  private static final int[] STATUSES = {101, 200, 302, 404, 503};
  private static final long HOUR = 3_600_000_000_000L;

  private RoverAccessLogTraffic() {}

  /** Both Rovers' streams of the minute of {@code time}. */
  public static void send(int grpcPort, long time) throws Exception {
    EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub stub = GrpcClients.builder("http://127.0.0.1:" + grpcPort)
        .build(EBPFAccessLogServiceGrpc.EBPFAccessLogServiceStub.class);
    long boot = time / 1000 - 3600;
    AccessLogConnection calls = connection(pod(CLIENT, CLIENT_POD, 41000), pod(SERVER, SERVER_POD, 3306),
        DetectPoint.client, AccessLogProtocolType.HTTP_1, false);
    AccessLogConnection serves = connection(pod(SERVER, SERVER_POD, 3306), pod(CLIENT, CLIENT_POD, 41000),
        DetectPoint.server, AccessLogProtocolType.HTTP_1, false);
    check(RoverAccessLog.send(stub, stream(boot, calls, connect(HOUR, HOUR + 90_000, true))));
    check(RoverAccessLog.send(stub, stream(boot, serves, accept(HOUR, HOUR + 40_000))));
  }

  private static List<EBPFAccessLogMessage> stream(long boot, AccessLogConnection connection,
      AccessLogKernelLog opened) {
    List<EBPFAccessLogMessage> messages = new ArrayList<>();
    messages.add(EBPFAccessLogMessage.newBuilder().setNode(node(boot, "")).setConnection(connection)
        .addKernelLogs(opened).build());
    for (int i = 0; i < STATUSES.length; i++) {
      long at = HOUR + (i + 1) * 10_000_000L;
      messages.add(EBPFAccessLogMessage.newBuilder()
          .addKernelLogs(withLayer3(write(at, at + 70_000, 900, 2, 1)))
          .addKernelLogs(withLayer3(read(at + 100_000, at + 4_000_000, 1500, 2)))
          .setProtocolLog(http(AccessLogHTTPProtocolRequestMethod.Get, PATHS.get(i % PATHS.size()), STATUSES[i], at,
              at + (i + 2) * 1_000_000L))
          .build());
    }
    messages.add(EBPFAccessLogMessage.newBuilder().addKernelLogs(close(HOUR + 90_000_000, HOUR + 90_020_000, true))
        .build());
    return messages;
  }

  /** The rarer layer-3 numbers (ARP resolution, netfilter) set too. */
  private static AccessLogKernelLog withLayer3(AccessLogKernelLog log) {
    AccessLogKernelLog.Builder b = log.toBuilder();
    if (b.hasWrite()) {
      b.getWriteBuilder().setL3Metrics(AccessLogKernelWriteL3Metrics.newBuilder(b.getWrite().getL3Metrics())
          .setTotalResolveMACCount(1).setTotalResolveMACDuration(2_000).setTotalNetFilterCount(3)
          .setTotalNetFilterDuration(4_000));
    } else {
      b.getReadBuilder().setL3Metrics(AccessLogKernelReadL3Metrics.newBuilder(b.getRead().getL3Metrics())
          .setTotalNetFilterCount(2).setTotalNetFilterDuration(3_000));
    }
    return b.build();
  }

  private static void check(Status status) {
    if (!status.isOk()) {
      throw new IllegalStateException("Rover's access log was refused: " + status);
    }
  }
}
