package io.sextant.benchmarks;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.sextant.benchmarks.MeshTopology.Instance;
import io.sextant.benchmarks.MeshTopology.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.skywalking.apm.network.common.v3.DetectPoint;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.HTTPServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.Protocol;
import org.apache.skywalking.apm.network.servicemesh.v3.ServiceMeshMetrics;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetric;
import org.apache.skywalking.apm.network.servicemesh.v3.TCPServiceMeshMetrics;

/**
 * Ready-to-send telemetry messages, built up front so that generating them does not limit the
 * send rate. Immutable once built; the generator builds fresh pools every second so start times
 * stay current and new samples keep coming.
 *
 * <p>{@link #build} makes SkyWalking mesh telemetry: each call is reported by both sidecars (a
 * client and a server record), except calls from outside the mesh, which only the server side
 * sees. {@link AlsTraffic} makes Envoy access-log messages with the same shape of pool, {@link
 * RoverTraffic} Rover's access-log messages in groups (a connection's messages).
 */
final class MessagePool<M extends MessageLite> {
  final List<M> messages;
  /** What each message counts as sent: records (mesh, rover) or access-log entries (als). */
  final int[] records;
  /** Records the server should derive from each message (mesh: the records themselves). */
  final int[] derived;
  /** Each message serialized, behind its 5-byte gRPC prefix (uncompressed, length). */
  final byte[][] framed;
  final long totalRecords;
  /**
   * Which messages begin a group that must be sent in order on one stream (Rover: a connection's
   * messages, the first describing it); null when every message stands alone.
   */
  private final boolean[] opens;

  MessagePool(List<M> messages, List<Integer> records, List<Integer> derived) {
    this(messages, records, derived, null);
  }

  /** {@code opens}: per message, whether it begins a group (the first must); null: every one. */
  MessagePool(List<M> messages, List<Integer> records, List<Integer> derived, boolean[] opens) {
    if (opens != null && (opens.length != messages.size() || (opens.length > 0 && !opens[0]))) {
      throw new IllegalArgumentException("opens must have one flag per message, the first set");
    }
    this.opens = opens == null ? null : opens.clone();
    this.messages = List.copyOf(messages);
    this.records = records.stream().mapToInt(Integer::intValue).toArray();
    this.derived = derived.stream().mapToInt(Integer::intValue).toArray();
    this.framed = new byte[this.messages.size()][];
    for (int i = 0; i < framed.length; i++) {
      framed[i] = frame(this.messages.get(i));
    }
    long total = 0;
    for (int r : this.records) {
      total += r;
    }
    this.totalRecords = total;
  }

  /** The message as a gRPC length-prefixed message: flag 0 (not compressed), length, bytes. */
  static byte[] frame(MessageLite message) {
    int size = message.getSerializedSize();
    byte[] out = new byte[5 + size];
    out[1] = (byte) (size >>> 24);
    out[2] = (byte) (size >>> 16);
    out[3] = (byte) (size >>> 8);
    out[4] = (byte) size;
    CodedOutputStream coded = CodedOutputStream.newInstance(out, 5, size);
    try {
      message.writeTo(coded);
      coded.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // writing into an array of the exact size cannot fail
    }
    return out;
  }

  int size() {
    return messages.size();
  }

  /** Whether the message at {@code cursor} (modulo the size) begins a group. */
  boolean opens(int cursor) {
    return opens == null || opens[Math.floorMod(cursor, opens.length)];
  }

  /** {@code cursor}, or the first cursor after it whose message begins a group. */
  int nextOpening(int cursor) {
    int c = cursor;
    while (!opens(c)) {
      c++;
    }
    return c;
  }

  /** About {@code targetRecords} records in messages of {@code batch} records, ending near now. */
  static MessagePool<ServiceMeshMetrics> build(CallSampler sampler, int targetRecords, int batch, long nowMillis) {
    List<ServiceMeshMetrics> messages = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    HTTPServiceMeshMetrics.Builder http = HTTPServiceMeshMetrics.newBuilder();
    TCPServiceMeshMetrics.Builder tcp = TCPServiceMeshMetrics.newBuilder();
    int made = 0;
    while (made < Math.max(1, targetRecords)) {
      sampler.next(nowMillis);
      boolean bothSides = sampler.source != null;
      for (int side = bothSides ? 0 : 1; side < 2; side++) {
        boolean client = side == 0;
        if (sampler.isTcp()) {
          tcp.addMetrics(tcpRecord(sampler, client));
          if (tcp.getMetricsCount() == batch) {
            messages.add(ServiceMeshMetrics.newBuilder().setTcpMetrics(tcp).build());
            counts.add(batch);
            tcp = TCPServiceMeshMetrics.newBuilder();
          }
        } else {
          http.addMetrics(httpRecord(sampler, client));
          if (http.getMetricsCount() == batch) {
            messages.add(ServiceMeshMetrics.newBuilder().setHttpMetrics(http).build());
            counts.add(batch);
            http = HTTPServiceMeshMetrics.newBuilder();
          }
        }
        made++;
      }
    }
    if (http.getMetricsCount() > 0) {
      counts.add(http.getMetricsCount());
      messages.add(ServiceMeshMetrics.newBuilder().setHttpMetrics(http).build());
    }
    if (tcp.getMetricsCount() > 0) {
      counts.add(tcp.getMetricsCount());
      messages.add(ServiceMeshMetrics.newBuilder().setTcpMetrics(tcp).build());
    }
    return new MessagePool<>(messages, counts, counts);
  }

  private static HTTPServiceMeshMetric httpRecord(CallSampler s, boolean client) {
    long start = client ? s.clientStartMillis : s.serverStartMillis;
    int latency = client ? s.clientLatencyMillis : s.serverLatencyMillis;
    Instance src = s.source;
    HTTPServiceMeshMetric.Builder b = HTTPServiceMeshMetric.newBuilder()
        .setStartTime(start)
        .setEndTime(start + latency)
        .setSourceServiceName(src == null ? "" : s.edge.source.name)
        .setSourceServiceInstance(src == null ? "" : src.name)
        .setDestServiceName(s.edge.dest.name)
        .setDestServiceInstance(s.dest.name)
        .setEndpoint(s.endpoint)
        .setLatency(latency)
        .setResponseCode(s.responseCode)
        .setStatus(s.success)
        .setProtocol(s.edge.kind() == Kind.GRPC ? Protocol.gRPC : Protocol.HTTP)
        .setDetectPoint(client ? DetectPoint.client : DetectPoint.server)
        .setTlsMode(s.edge.tlsMode)
        .setInternalErrorCode(s.internalErrorCode)
        .setInternalRequestLatencyNanos(client ? s.clientRequestNanos : s.serverRequestNanos)
        .setInternalResponseLatencyNanos(client ? s.clientResponseNanos : s.serverResponseNanos)
        .addAllDestInstanceProperties(s.dest.protoProperties);
    if (src != null) {
      b.addAllSourceInstanceProperties(src.protoProperties);
    }
    return b.build();
  }

  private static TCPServiceMeshMetric tcpRecord(CallSampler s, boolean client) {
    long start = client ? s.clientStartMillis : s.serverStartMillis;
    int latency = client ? s.clientLatencyMillis : s.serverLatencyMillis;
    Instance src = s.source;
    TCPServiceMeshMetric.Builder b = TCPServiceMeshMetric.newBuilder()
        .setStartTime(start)
        .setEndTime(start + latency)
        .setSourceServiceName(src == null ? "" : s.edge.source.name)
        .setSourceServiceInstance(src == null ? "" : src.name)
        .setDestServiceName(s.edge.dest.name)
        .setDestServiceInstance(s.dest.name)
        .setDetectPoint(client ? DetectPoint.client : DetectPoint.server)
        .setTlsMode(s.edge.tlsMode)
        .setInternalErrorCode(s.internalErrorCode)
        .setInternalRequestLatencyNanos(client ? s.clientRequestNanos : s.serverRequestNanos)
        .setInternalResponseLatencyNanos(client ? s.clientResponseNanos : s.serverResponseNanos)
        // Bytes as seen by the reporter: the client sends the request, the server receives it.
        .setSentBytes(client ? s.requestBytes : s.responseBytes)
        .setReceivedBytes(client ? s.responseBytes : s.requestBytes)
        .addAllDestInstanceProperties(s.dest.protoProperties);
    if (src != null) {
      b.addAllSourceInstanceProperties(src.protoProperties);
    }
    return b.build();
  }
}
