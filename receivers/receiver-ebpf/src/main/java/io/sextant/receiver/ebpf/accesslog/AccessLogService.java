package io.sextant.receiver.ebpf.accesslog;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.sextant.api.config.Settings;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.KernelRecord;
import io.sextant.api.model.Observation;
import io.sextant.api.receiver.RecordSink;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ReceiverMetrics;
import io.sextant.receiver.common.RecordStream;
import io.sextant.receiver.k8s.KubernetesPeers;
import org.apache.skywalking.apm.network.common.v3.Instant;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnectionTLSMode;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogHTTPProtocol;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogKernelLog;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogProtocolLogs;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogDownstream;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogMessage;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogServiceGrpc;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ZTunnelAttachmentSecurityPolicy;

/**
 * Rover's eBPF access log ({@code skywalking.v3.EBPFAccessLogService/collect}): the K8S_SERVICE
 * layer. Rover opens a stream per flush; its first message names the node (boot time, cluster), and
 * the first message of each connection describes the connection (both ends, role, protocol, TLS),
 * which holds for the messages after it until the next description. Every kernel operation and every
 * decoded HTTP exchange is one {@link KernelRecord}. A stream keeps only its node and its current
 * connection, so nothing grows with the connections a node has.
 *
 * <p>Behind Istio's ztunnel (ambient mode), HTTP exchanges, writes and reads are also MESH-layer
 * calls and flows ({@link MeshTwins}), not counted again as records of the stream.
 *
 * <p>As in SkyWalking, traffic between two ends of one service is not counted (the service talking
 * to itself through its own address): dropped, counted as {@code same_service}. Records that cannot
 * be attributed (no node, no connection yet, no service) are refused by reason and named in the
 * stream's {@code INVALID_ARGUMENT} answer, which Rover logs.
 */
public final class AccessLogService extends EBPFAccessLogServiceGrpc.EBPFAccessLogServiceImplBase {
  private static final EBPFAccessLogDownstream DONE = EBPFAccessLogDownstream.getDefaultInstance();

  private final RecordSink sink;
  private final ReceiverMetrics metrics;
  private final Peers peers;
  private final EndpointNamer endpoints;
  private final int maxStringLength;

  /**
   * {@code endpoints} names server-side HTTP endpoints; {@code resolver} may be null: peers Rover
   * names only by IP are then the Unknown service.
   */
  public AccessLogService(RecordSink sink, ReceiverMetrics metrics, EndpointNamer endpoints,
      PeerAddressResolver resolver, int maxStringLength) {
    this.sink = sink;
    this.metrics = metrics;
    this.peers = new Peers(resolver);
    this.endpoints = endpoints;
    this.maxStringLength = maxStringLength;
  }

  /** As configured under {@code receiver.ebpf.accessLog.*} ({@link AccessLogConfig}). */
  public static AccessLogService fromSettings(Settings settings, RecordSink sink, ReceiverMetrics metrics,
      PeerAddressResolver resolver, int maxStringLength) {
    return new AccessLogService(sink, metrics, EndpointNamer.fromSettings(settings, AccessLogConfig.P,
        () -> metrics.rejected("endpoint_overflow_folded", 1)), resolver, maxStringLength);
  }

  /** The pod resolver {@code receiver.ebpf.accessLog.kubernetes.*} asks for, or null. */
  public static PeerAddressResolver resolver(Settings settings, MeterRegistry registry) {
    return KubernetesPeers.fromSettings(settings, AccessLogConfig.KUBERNETES, registry);
  }

  public ServerServiceDefinition service() {
    return bindService();
  }

  @Override
  public StreamObserver<EBPFAccessLogMessage> collect(StreamObserver<EBPFAccessLogDownstream> response) {
    return new Stream(response);
  }

  private final class Stream extends RecordStream<EBPFAccessLogMessage, EBPFAccessLogDownstream> {
    private long bootNanos = -1;
    private String cluster = "";
    private Connection connection;
    /** Why the current connection yields no records (a reason tag), or null. */
    private String unusable;

    Stream(StreamObserver<EBPFAccessLogDownstream> response) {
      super(sink, metrics, Completion.REPORT_REJECTIONS, response, DONE);
    }

    @Override
    protected long recordsIn(EBPFAccessLogMessage m) {
      return m.getKernelLogsCount() + (m.hasProtocolLog() ? 1 : 0);
    }

    @Override
    protected void handle(EBPFAccessLogMessage m) {
      if (m.hasNode()) {
        Instant boot = m.getNode().getBootTime();
        bootNanos = boot.getSeconds() * 1_000_000_000L + boot.getNanos();
        cluster = m.getNode().getClusterName();
      }
      if (m.hasConnection()) {
        describe(m.getConnection());
      }
      long records = recordsIn(m);
      if (records == 0) {
        return;
      }
      if (bootNanos < 0) {
        reject("no_node", "the stream's first message names no node (its boot time dates every record)", records);
        return;
      }
      if (unusable != null) {
        if ("same_service".equals(unusable)) {
          metrics.rejected(unusable, records); // by design, as SkyWalking: not the client's fault
        } else {
          reject(unusable, "the connection's ends cannot be named", records);
        }
        return;
      }
      if (connection == null) {
        reject("no_connection", "records before any connection was described", records);
        return;
      }
      for (AccessLogKernelLog log : m.getKernelLogsList()) {
        KernelRecord r = KernelRecords.kernel(connection, bootNanos, log);
        if (r == null) {
          reject("empty_kernel_log", "a kernel log without an operation", 1);
        } else if (!offer(r) || !offerMeshTwin(r)) {
          return;
        }
      }
      if (m.hasProtocolLog()) {
        protocol(m.getProtocolLog());
      }
    }

    private void protocol(AccessLogProtocolLogs log) {
      if (log.getProtocolCase() != AccessLogProtocolLogs.ProtocolCase.HTTP) {
        reject("unknown_protocol", "a protocol log of no protocol Sextant knows", 1);
        return;
      }
      AccessLogHTTPProtocol http = log.getHttp();
      String path = http.getRequest().getPath();
      if (path.length() > maxStringLength) {
        reject("name_too_long", "a request path is longer than " + maxStringLength, 1);
        return;
      }
      // Only the server side has endpoints (SkyWalking's K8SEndpoint); the client side's name no budget.
      String endpoint = connection.role() == DetectPoint.SERVER
          ? endpoints.name(connection.local().service(), KernelRecords.method(http), path)
          : "";
      KernelRecord exchange = KernelRecords.http(connection, bootNanos, http, endpoint);
      if (offer(exchange)) {
        offerMeshTwin(exchange);
      }
    }

    /** Behind ztunnel, the MESH layer's view of the record too ({@link MeshTwins}). */
    private boolean offerMeshTwin(KernelRecord r) {
      if (connection.meshTlsMode() == null) {
        return true;
      }
      Observation twin = MeshTwins.of(r, connection.meshTlsMode());
      return twin == null || offerDerived(twin);
    }

    private void describe(AccessLogConnection c) {
      Peers.End local = peers.local(c, cluster);
      Peers.End remote = peers.remote(c, cluster);
      DetectPoint role = switch (c.getRole()) {
        case client -> DetectPoint.CLIENT;
        case server -> DetectPoint.SERVER;
        case proxy -> DetectPoint.PROXY;
        case UNRECOGNIZED -> null;
      };
      CallProtocol protocol = switch (c.getProtocol()) {
        case HTTP_1, HTTP_2 -> CallProtocol.HTTP;
        case TCP, UNRECOGNIZED -> CallProtocol.TCP;
      };
      String tls = c.getTlsMode() == AccessLogConnectionTLSMode.TLS ? "TLS" : "";
      String meshTls = !Peers.ztunnel(c) ? null
          : c.getAttachment().getZTunnel().getSecurityPolicy() == ZTunnelAttachmentSecurityPolicy.MTLS ? "mTLS"
          : tls.isEmpty() ? "NONE" : tls;
      unusable = unusable(local, remote, role);
      connection = unusable == null ? new Connection(local, remote, role, protocol, tls, meshTls) : null;
    }

    private String unusable(Peers.End local, Peers.End remote, DetectPoint role) {
      if (local == null || remote == null) {
        return "no_address";
      }
      if (role == null) {
        return "no_role";
      }
      if (local.service().isEmpty() || remote.service().isEmpty()) {
        return "no_service";
      }
      if (tooLong(local) || tooLong(remote)) {
        return "name_too_long";
      }
      return local.service().equals(remote.service()) ? "same_service" : null;
    }

    private boolean tooLong(Peers.End end) {
      return end.service().length() > maxStringLength || end.instance().length() > maxStringLength;
    }
  }
}
