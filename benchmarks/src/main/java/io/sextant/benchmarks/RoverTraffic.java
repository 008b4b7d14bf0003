package io.sextant.benchmarks;

import io.sextant.benchmarks.MeshTopology.Edge;
import io.sextant.benchmarks.MeshTopology.Instance;
import io.sextant.benchmarks.MeshTopology.Kind;
import io.sextant.benchmarks.MeshTopology.Service;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
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
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFAccessLogPolicy;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFOffsetTimestamp;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.EBPFTimestamp;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.IPAddress;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.KubernetesProcessAddress;

/**
 * The topology's HTTP traffic as SkyWalking Rover 0.7 reports it over its eBPF access log ({@code
 * skywalking.v3.EBPFAccessLogService/collect}, {@code pkg/accesslog/runner.go}).
 *
 * <p>Each client stream is the Rover of one node (the pods' {@code node_name}): the first message
 * of a stream carries the node (boot time, network interfaces), and the stream reports the
 * connections of the node's pods, client side for the calls a pod makes, server side for those it
 * answers, weighted as {@link AlsTraffic} weights a proxy's edges. One connection is a group of
 * messages, as Rover sends a connection's logs of one flush: the first message carries the
 * connection (local: the watched pod as a Kubernetes address, service {@code <app>.<namespace>};
 * remote: the peer pod, or an IP for a client outside the cluster; role; HTTP_1) and its kernel
 * logs without a protocol (connect or accept, and close), then one message per HTTP exchange with
 * the read and write syscalls that carried it and the decoded exchange. Calls come from {@link
 * CallSampler}; about as many 4xx as 5xx answers. Timestamps are nanoseconds since the node's boot,
 * which is set so that they are now.
 *
 * <p>Every kernel log and every protocol log is one record for the server. Rover opens a stream
 * per flush period (5 s); here a stream lasts the run, which changes nothing per record.
 */
final class RoverTraffic {
  private static final int PORT = 9080;
  private static final int MSS = 1448;

  /** One end of an edge a node's pod takes part in. */
  private record Side(Edge edge, Instance pod, boolean client) {}

  /** One node: the pods Rover watches there and what they log. */
  static final class Node {
    final String name;
    final EBPFAccessLogNodeInfo info;
    final long bootNanos;
    private final List<Side> sides = new ArrayList<>();
    private double[] cumulative = new double[0];
    private int pods;

    Node(String name, long bootMillis) {
      this.name = name;
      this.bootNanos = bootMillis * 1_000_000L;
      this.info = EBPFAccessLogNodeInfo.newBuilder()
          .setName(name)
          .addNetInterfaces(EBPFAccessLogNodeNetInterface.newBuilder().setIndex(0).setMtu(65536).setName("lo"))
          .addNetInterfaces(EBPFAccessLogNodeNetInterface.newBuilder().setIndex(1).setMtu(1500).setName("eth0"))
          .addNetInterfaces(EBPFAccessLogNodeNetInterface.newBuilder().setIndex(2).setMtu(1450).setName("cni0"))
          .setBootTime(Instant.newBuilder().setSeconds(Math.floorDiv(bootMillis, 1000))
              .setNanos((int) Math.floorMod(bootMillis, 1000) * 1_000_000))
          .setPolicy(EBPFAccessLogPolicy.newBuilder().addExcludeNamespaces("kube-system"))
          .build();
    }

    private void add(Side side, double weight) {
      sides.add(side);
      cumulative = Arrays.copyOf(cumulative, cumulative.length + 1);
      cumulative[cumulative.length - 1] = (cumulative.length > 1 ? cumulative[cumulative.length - 2] : 0) + weight;
    }

    String describe() {
      long clients = sides.stream().filter(Side::client).count();
      return String.format(Locale.ROOT, "%s: %d pods, %d client and %d server sides", name, pods, clients,
          sides.size() - clients);
    }
  }

  private final MeshTopology topology;
  /** Nodes with HTTP traffic, by name. */
  final List<Node> nodes;

  /** {@code startMillis}: the run's start; nodes booted a few days before it. */
  RoverTraffic(MeshTopology topology, long startMillis) {
    this.topology = topology;
    Map<String, Node> byName = new TreeMap<>();
    Map<Instance, Boolean> seen = new IdentityHashMap<>();
    for (Edge e : topology.l7Edges) {
      for (Instance caller : e.sourceInstances) {
        side(byName, seen, startMillis, new Side(e, caller, true), e.weight / e.sourceInstances.size());
      }
      for (Instance callee : e.dest.instances) {
        side(byName, seen, startMillis, new Side(e, callee, false), e.weight / e.dest.instances.size());
      }
    }
    if (byName.isEmpty()) {
      throw new IllegalArgumentException("the topology has no HTTP traffic to log");
    }
    this.nodes = List.copyOf(byName.values());
  }

  private static void side(Map<String, Node> byName, Map<Instance, Boolean> seen, long startMillis, Side side,
      double weight) {
    String name = side.pod().properties.getOrDefault("node_name", "node-0");
    // Up a few days, a different time for every node.
    Node node = byName.computeIfAbsent(name, n -> new Node(n, startMillis - 3 * 86_400_000L
        - (n.hashCode() & 0xffff) * 1_000L));
    if (seen.put(side.pod(), Boolean.TRUE) == null) {
      node.pods++;
    }
    node.add(side, weight);
  }

  /** The node stream {@code i} stands for. */
  Node nodeFor(int stream) {
    return nodes.get(stream % nodes.size());
  }

  String describe(int streams) {
    int covered = Math.min(streams, nodes.size());
    return String.format(Locale.ROOT, "%d streams as %d of the %d nodes with HTTP traffic%s", streams, covered,
        nodes.size(), covered < nodes.size() ? "; --streams=" + nodes.size() + " covers them all" : "");
  }

  /** The logs of one stream's node. Not thread-safe; one per stream. */
  Stream stream(int index, double errorRatio, long seed) {
    return new Stream(nodeFor(index),
        new CallSampler(topology, 0, errorRatio, seed + 0x9E3779B97F4A7C15L * (index + 1)), errorRatio);
  }

  /** Service names as Rover's default rule makes them: {@code <app>.<namespace>}. */
  private static String service(Instance pod, Service s) {
    return s.name + "." + pod.properties.getOrDefault("namespace", "default");
  }

  final class Stream {
    final Node self;
    private final CallSampler sampler;
    private final SplittableRandom rnd;
    private final double clientErrorRatio;

    private Stream(Node self, CallSampler sampler, double clientErrorRatio) {
      this.self = self;
      this.sampler = sampler;
      this.rnd = sampler.random();
      this.clientErrorRatio = clientErrorRatio;
    }

    /** Replays past minutes, as {@link CallSampler#backfill}. */
    Stream backfill(int minutes, long startMillis, long durationMillis) {
      sampler.backfill(minutes, startMillis, durationMillis);
      return this;
    }

    /** The stream's first message: Rover names its node once, on the first message. */
    EBPFAccessLogMessage withNode(EBPFAccessLogMessage m) {
      return m.toBuilder().setNode(self.info).build();
    }

    /**
     * About {@code targetRecords} records, whole connections of messages, each exchange's message
     * with {@code kernelLogs} syscalls (at least 2: a write and a read), ending near now.
     */
    MessagePool<EBPFAccessLogMessage> build(int targetRecords, int kernelLogs, long nowMillis) {
      List<EBPFAccessLogMessage> messages = new ArrayList<>();
      List<Integer> records = new ArrayList<>();
      List<Boolean> opens = new ArrayList<>();
      int made = 0;
      while (made < Math.max(1, targetRecords)) {
        made += connection(Math.max(2, kernelLogs), nowMillis, messages, records, opens);
      }
      boolean[] starts = new boolean[opens.size()];
      for (int i = 0; i < starts.length; i++) {
        starts[i] = opens.get(i);
      }
      return new MessagePool<>(messages, records, records, starts);
    }

    /** One connection's messages; the records they carry. */
    private int connection(int kernelLogs, long nowMillis, List<EBPFAccessLogMessage> out, List<Integer> records,
        List<Boolean> opens) {
      int i = Arrays.binarySearch(self.cumulative, rnd.nextDouble() * self.cumulative[self.cumulative.length - 1]);
      Side side = self.sides.get(Math.min(self.cumulative.length - 1, i < 0 ? -i - 1 : i));
      Edge edge = side.edge();
      Instance local = side.pod();
      Instance peer = side.client() ? edge.dest.instances.get(rnd.nextInt(edge.dest.instances.size()))
          : edge.source == null ? null : edge.sourceInstances.get(rnd.nextInt(edge.sourceInstances.size()));
      int ephemeral = 32768 + rnd.nextInt(28232);
      ConnectionAddress localAddress = side.client()
          ? pod(local, edge.source, ephemeral) : pod(local, edge.dest, PORT);
      ConnectionAddress remoteAddress = side.client() ? pod(peer, edge.dest, PORT)
          : peer == null ? ConnectionAddress.newBuilder().setIp(IPAddress.newBuilder()
              .setHost("203.0.113." + (1 + rnd.nextInt(254))).setPort(ephemeral)).build()
          : pod(peer, edge.source, ephemeral);
      AccessLogConnection connection = AccessLogConnection.newBuilder()
          .setLocal(localAddress)
          .setRemote(remoteAddress)
          .setRole(side.client() ? DetectPoint.client : DetectPoint.server)
          .setTlsMode(AccessLogConnectionTLSMode.Plain)
          .setProtocol(AccessLogProtocolType.HTTP_1)
          .build();

      // Requests on this connection in one flush: keep-alive, about 4 on average.
      int exchanges = 1;
      while (exchanges < 16 && rnd.nextDouble() < 0.75) {
        exchanges++;
      }
      List<EBPFAccessLogMessage> calls = new ArrayList<>(exchanges);
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (int k = 0; k < exchanges; k++) {
        sampler.next(edge, side.client() ? local : peer, side.client() ? peer : local, nowMillis);
        long start = nanos(side.client() ? sampler.clientStartMillis : sampler.serverStartMillis);
        long end = start + (side.client() ? sampler.clientLatencyMillis : sampler.serverLatencyMillis) * 1_000_000L
            + rnd.nextInt(1_000_000);
        first = Math.min(first, start);
        last = Math.max(last, end);
        calls.add(exchange(side.client(), kernelLogs, start, end));
      }
      // The logs without a protocol come first, on the message that describes the connection.
      long connectStart = first - 200_000 - rnd.nextInt(800_000);
      long connectEnd = connectStart + 30_000 + rnd.nextInt(120_000);
      long closeStart = last + 50_000 + rnd.nextInt(500_000);
      AccessLogKernelLog open = side.client()
          ? AccessLogKernelLog.newBuilder().setConnect(AccessLogKernelConnectOperation.newBuilder()
              .setStartTime(at(connectStart)).setEndTime(at(connectEnd)).setSuccess(true)).build()
          : AccessLogKernelLog.newBuilder().setAccept(AccessLogKernelAcceptOperation.newBuilder()
              .setStartTime(at(connectStart)).setEndTime(at(connectEnd))).build();
      AccessLogKernelLog close = AccessLogKernelLog.newBuilder().setClose(AccessLogKernelCloseOperation.newBuilder()
          .setStartTime(at(closeStart)).setEndTime(at(closeStart + 10_000 + rnd.nextInt(40_000)))
          .setSuccess(true)).build();
      out.add(EBPFAccessLogMessage.newBuilder().setConnection(connection).addKernelLogs(open).addKernelLogs(close)
          .build());
      records.add(2);
      opens.add(true);
      for (EBPFAccessLogMessage m : calls) {
        out.add(m);
        records.add(m.getKernelLogsCount() + 1);
        opens.add(false);
      }
      return 2 + exchanges * (kernelLogs + 1);
    }

    /**
     * One decoded exchange with the syscalls that carried it: the request written (client) or read
     * (server) in the first half of them, the response in the rest.
     */
    private EBPFAccessLogMessage exchange(boolean client, int kernelLogs, long start, long end) {
      String endpoint = sampler.endpoint;
      AccessLogHTTPProtocolRequestMethod method = AccessLogHTTPProtocolRequestMethod.Get;
      String path = endpoint;
      int colon = endpoint.indexOf(':');
      if (endpoint.startsWith("/") || endpoint.isEmpty()) {
        method = AccessLogHTTPProtocolRequestMethod.Post; // a gRPC method name
      } else if (colon > 0) {
        method = switch (endpoint.substring(0, colon)) {
          case "POST" -> AccessLogHTTPProtocolRequestMethod.Post;
          case "PUT" -> AccessLogHTTPProtocolRequestMethod.Put;
          case "DELETE" -> AccessLogHTTPProtocolRequestMethod.Delete;
          case "PATCH" -> AccessLogHTTPProtocolRequestMethod.Patch;
          default -> AccessLogHTTPProtocolRequestMethod.Get;
        };
        path = endpoint.substring(colon + 1);
      }
      int status = sampler.responseCode;
      if (status < 500 && rnd.nextDouble() < clientErrorRatio) {
        status = CLIENT_ERRORS[rnd.nextInt(CLIENT_ERRORS.length)];
      }
      long requestHeaders = 180 + rnd.nextInt(240);
      long requestBody = method == AccessLogHTTPProtocolRequestMethod.Get ? 0 : 40 + rnd.nextInt(900);
      long responseHeaders = 120 + rnd.nextInt(160);
      long responseBody = status < 400 ? (long) (2048 * Math.exp(rnd.nextGaussian())) : 19 + rnd.nextInt(80);
      EBPFAccessLogMessage.Builder m = EBPFAccessLogMessage.newBuilder();
      int requestSyscalls = (kernelLogs + 1) / 2;
      int responseSyscalls = kernelLogs - requestSyscalls;
      long latency = end - start;
      for (int k = 0; k < requestSyscalls; k++) {
        long at = start + k * 15_000L;
        long bytes = (requestHeaders + requestBody) / requestSyscalls;
        m.addKernelLogs(client ? write(at, bytes) : read(at, bytes));
      }
      for (int k = 0; k < responseSyscalls; k++) {
        long at = start + Math.max(20_000L * requestSyscalls, latency - 60_000L * (responseSyscalls - k));
        long bytes = (responseHeaders + responseBody) / responseSyscalls;
        m.addKernelLogs(client ? read(at, bytes) : write(at, bytes));
      }
      return m.setProtocolLog(AccessLogProtocolLogs.newBuilder().setHttp(AccessLogHTTPProtocol.newBuilder()
              .setStartTime(at(start))
              .setEndTime(at(end))
              .setRequest(AccessLogHTTPProtocolRequest.newBuilder().setMethod(method).setPath(path)
                  .setSizeOfHeadersBytes(requestHeaders).setSizeOfBodyBytes(requestBody))
              .setResponse(AccessLogHTTPProtocolResponse.newBuilder().setStatusCode(status)
                  .setSizeOfHeadersBytes(responseHeaders).setSizeOfBodyBytes(responseBody))))
          .build();
    }

    private AccessLogKernelLog write(long start, long bytes) {
      long duration = 8_000 + rnd.nextInt(40_000);
      long packets = Math.max(1, (bytes + MSS - 1) / MSS);
      return AccessLogKernelLog.newBuilder().setWrite(AccessLogKernelWriteOperation.newBuilder()
          .setStartTime(at(start))
          .setEndTime(at(start + duration))
          .setL4Metrics(AccessLogKernelWriteL4Metrics.newBuilder().setTotalDuration(duration * 3 / 5)
              .setTotalTransmitPackageCount(packets).setTotalRetransmitPackageCount(rnd.nextInt(200) == 0 ? 1 : 0)
              .setTotalPackageSize(bytes))
          .setL3Metrics(AccessLogKernelWriteL3Metrics.newBuilder().setTotalDuration(duration * 2 / 5)
              .setTotalLocalDuration(duration / 10).setTotalOutputDuration(duration / 4)
              .setTotalNetFilterCount(packets * 4).setTotalNetFilterDuration(duration / 20))
          .setL2Metrics(AccessLogKernelWriteL2Metrics.newBuilder().setTotalDuration(duration / 5).setIfindex(1)
              .setTotalEnterQueueBufferCount(packets).setTotalReadySendDuration(duration / 20)
              .setTotalNetDeviceSendDuration(duration / 10)))
          .build();
    }

    private AccessLogKernelLog read(long start, long bytes) {
      long duration = 5_000 + rnd.nextInt(30_000);
      long packets = Math.max(1, (bytes + MSS - 1) / MSS);
      return AccessLogKernelLog.newBuilder().setRead(AccessLogKernelReadOperation.newBuilder()
          .setStartTime(at(start))
          .setEndTime(at(start + duration))
          .setL2Metrics(AccessLogKernelReadL2Metrics.newBuilder().setIfindex(1).setTotalPackageCount((int) packets)
              .setTotalPackageSize(bytes).setTotalPackageToQueueDuration(duration / 10)
              .setTotalRcvPackageFromQueueDuration(duration / 8))
          .setL3Metrics(AccessLogKernelReadL3Metrics.newBuilder().setTotalDuration(duration / 3)
              .setTotalRecvDuration(duration / 4).setTotalLocalDuration(duration / 10)
              .setTotalNetFilterCount(packets * 4).setTotalNetFilterDuration(duration / 20))
          .setL4Metrics(AccessLogKernelReadL4Metrics.newBuilder().setTotalDuration(duration / 2)))
          .build();
    }

    /** Nanoseconds since the node's boot of an epoch millisecond, with a sub-millisecond part. */
    private long nanos(long millis) {
      return millis * 1_000_000L - self.bootNanos + rnd.nextInt(1_000_000);
    }
  }

  private static final int[] CLIENT_ERRORS = {404, 404, 404, 400, 401, 403, 429};

  private static ConnectionAddress pod(Instance pod, Service service, int port) {
    return ConnectionAddress.newBuilder().setKubernetes(KubernetesProcessAddress.newBuilder()
        .setServiceName(service(pod, service)).setPodName(pod.name).setContainerName(service.name)
        .setProcessName(service.kind == Kind.GRPC ? "node" : "java").setPort(port)).build();
  }

  private static EBPFTimestamp at(long offsetNanos) {
    return EBPFTimestamp.newBuilder().setOffset(EBPFOffsetTimestamp.newBuilder().setOffset(offsetNanos)).build();
  }
}
