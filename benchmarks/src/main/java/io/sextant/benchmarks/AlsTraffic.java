package io.sextant.benchmarks;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.core.v3.RequestMethod;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPRequestProperties;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPResponseProperties;
import io.envoyproxy.envoy.data.accesslog.v3.ResponseFlags;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties.CertificateProperties;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties.CertificateProperties.SubjectAltName;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage.HTTPAccessLogEntries;
import io.envoyproxy.envoy.service.accesslog.v3.StreamAccessLogsMessage.Identifier;
import io.sextant.benchmarks.MeshTopology.Edge;
import io.sextant.benchmarks.MeshTopology.Instance;
import io.sextant.benchmarks.MeshTopology.Kind;
import io.sextant.benchmarks.MeshTopology.Service;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The topology's HTTP traffic as Istio proxies report it over Envoy's Access Log Service ({@code
 * envoy.service.accesslog.v3.AccessLogService/StreamAccessLogs}).
 *
 * <p>Each client stream stands for one proxy (sidecar or gateway), like a real Envoy's single
 * long-lived ALS stream: the first message of the stream carries the proxy's {@code Identifier}
 * (node id {@code sidecar~ip~pod.ns~ns.svc.cluster.local} or {@code router~...}, node metadata
 * with NAME, NAMESPACE, WORKLOAD_NAME, LABELS, ...), and every entry on it is one that proxy would
 * log. Calls are drawn from the topology <em>conditioned on this proxy taking part</em>: each L7
 * edge the pod calls out on contributes {@code weight / callers} outbound traffic (entry on an
 * {@code outbound|9080||svc.ns.svc.cluster.local} cluster, the callee's metadata in filter state
 * {@code upstream_peer}), each edge into its service {@code weight / replicas} inbound traffic
 * ({@code inbound|9080||}, the caller's metadata in {@code downstream_peer}, mTLS certificates).
 * The peer pod is drawn uniformly, as {@link CallSampler} does, and the call's endpoint, latency and
 * outcome come from {@link CallSampler} too. So the entries of stream i are exactly the entries pod
 * i would log for a sample of the topology's calls, with no rejection sampling.
 *
 * <p>Which proxies: the pods that log HTTP at all (TCP-only pods such as databases are left out;
 * ALS mode sends HTTP entries only), ordered round robin over services (first pod of every service,
 * then the second, ...), so a few streams already cover different services. Stream i is proxy {@code
 * i mod proxies}; {@code --streams} at least the number of proxies covers the whole mesh.
 *
 * <p>Calls from outside the mesh: to a sidecar they are inbound entries without {@code
 * downstream_peer} or TLS (the server still records them, caller unknown); to a gateway they are
 * not separate entries, since a gateway logs one entry per request, on its outbound cluster, from
 * which the server derives both the client-side call to the upstream and the gateway's own
 * server-side call. Hence the expected call records: one per entry, two per gateway outbound entry.
 */
final class AlsTraffic {
  /** Istio's default log name for the envoyHttpAls provider. */
  static final String LOG_NAME = "http_envoy_accesslog";
  private static final int PORT = 9080;
  private static final String CLUSTER_ID = "Kubernetes";
  private static final String TRUST_DOMAIN = "cluster.local";

  /** One pod's proxy: who it is, how peers see it, and what it logs. */
  static final class Proxy {
    final Instance instance;
    final Service service;
    final String namespace;
    final String ip;
    final boolean gateway;
    final Any peer;
    final Identifier identifier;
    /** The pod at its service port: upstream of callers, local address of its inbound listener. */
    final Address podAddress;
    final CertificateProperties certificate;
    /** Edges this proxy logs, whether it is the caller on each, and cumulative weights. */
    private final List<Edge> edges = new ArrayList<>();
    private final List<Boolean> outbound = new ArrayList<>();
    private double[] cumulative = new double[0];
    private int outboundEdges;
    private int inboundEdges;

    Proxy(Instance instance, Service service) {
      this.instance = instance;
      this.service = service;
      this.namespace = instance.properties.getOrDefault("namespace", "default");
      this.ip = instance.properties.getOrDefault("ipv4s", "10.0.0.1");
      this.gateway = service.gateway;
      String version = instance.properties.getOrDefault("version", "v1");
      String workload = gateway ? service.name : service.name + "-" + version;
      String serviceAccount = gateway ? service.name + "-service-account" : namespace + "-" + service.name;

      Struct.Builder labels = Struct.newBuilder()
          .putFields("app", str(service.name))
          .putFields("version", str(version))
          .putFields("service.istio.io/canonical-name", str(service.name))
          .putFields("service.istio.io/canonical-revision", str(version));
      if (gateway) {
        labels.putFields("istio", str(service.name.replace("istio-", "")));
      } else {
        labels.putFields("security.istio.io/tlsMode", str("istio"));
      }
      // Filter-state form (Istio >= 1.24 metadata exchange): what a peer learns about this pod.
      Struct peerMetadata = Struct.newBuilder()
          .putFields("NAME", str(instance.name))
          .putFields("NAMESPACE", str(namespace))
          .putFields("CLUSTER_ID", str(CLUSTER_ID))
          .putFields("WORKLOAD_NAME", str(workload))
          .putFields("TYPE", str("deployment"))
          .putFields("LABELS", Value.newBuilder().setStructValue(labels).build())
          .build();
      this.peer = Any.pack(peerMetadata);
      // Node metadata: the same keys plus the proxy's own settings (a real one carries more still).
      Struct nodeMetadata = peerMetadata.toBuilder()
          .removeFields("TYPE")
          .putFields("MESH_ID", str(TRUST_DOMAIN))
          .putFields("ISTIO_VERSION", str("1.24.2"))
          .putFields("INSTANCE_IPS", str(ip))
          .putFields("SERVICE_ACCOUNT", str(serviceAccount))
          .putFields("OWNER", str("kubernetes://apis/apps/v1/namespaces/" + namespace + "/deployments/" + workload))
          .putFields("INTERCEPTION_MODE", str("REDIRECT"))
          .putFields("NODE_NAME", str(instance.properties.getOrDefault("node_name", "node-0")))
          .build();
      String domain = namespace + ".svc.cluster.local";
      this.identifier = Identifier.newBuilder()
          .setNode(Node.newBuilder()
              .setId((gateway ? "router~" : "sidecar~") + ip + "~" + instance.name + "." + namespace + "~" + domain)
              .setCluster(workload + "." + namespace)
              .setUserAgentName("envoy")
              .setMetadata(nodeMetadata))
          .setLogName(LOG_NAME)
          .build();
      this.podAddress = address(ip, PORT);
      this.certificate = CertificateProperties.newBuilder()
          .addSubjectAltName(SubjectAltName.newBuilder()
              .setUri("spiffe://" + TRUST_DOMAIN + "/ns/" + namespace + "/sa/" + serviceAccount))
          .build();
    }

    private void add(Edge edge, boolean out, double weight) {
      edges.add(edge);
      outbound.add(out);
      cumulative = Arrays.copyOf(cumulative, cumulative.length + 1);
      cumulative[cumulative.length - 1] = (cumulative.length > 1 ? cumulative[cumulative.length - 2] : 0) + weight;
      if (out) {
        outboundEdges++;
      } else {
        inboundEdges++;
      }
    }

    boolean logsHttp() {
      return !edges.isEmpty();
    }

    String describe() {
      return String.format(Locale.ROOT, "%s %s (%s, %d outbound and %d inbound edges)",
          gateway ? "gateway" : "sidecar", instance.name, service.name + "." + namespace, outboundEdges, inboundEdges);
    }
  }

  /** Per service: the virtual IP callers dial, the SNI and cluster names Istio gives it. */
  private record ServiceNames(Address vip, String outboundCluster, String sni, String authority) {}

  private final MeshTopology topology;
  private final IdentityHashMap<Instance, Proxy> byInstance = new IdentityHashMap<>();
  private final IdentityHashMap<Service, ServiceNames> names = new IdentityHashMap<>();
  /** Proxies that log HTTP, round robin over services. */
  final List<Proxy> proxies;

  AlsTraffic(MeshTopology topology) {
    this.topology = topology;
    int maxPods = 0;
    for (Service s : topology.services) {
      maxPods = Math.max(maxPods, s.instances.size());
      for (Instance i : s.instances) {
        byInstance.put(i, new Proxy(i, s));
      }
      String ns = s.instances.isEmpty() ? "default"
          : s.instances.get(0).properties.getOrDefault("namespace", "default");
      String fqdn = s.name + "." + ns + ".svc.cluster.local";
      int h = s.name.hashCode();
      names.put(s, new ServiceNames(address("10.96." + ((h >>> 8) & 0xff) + "." + (1 + (h & 0x7f)), PORT),
          "outbound|" + PORT + "||" + fqdn, "outbound_." + PORT + "_._." + fqdn,
          s.name + "." + ns + ":" + PORT));
    }
    for (Edge e : topology.l7Edges) {
      if (e.source != null) {
        for (Instance caller : e.sourceInstances) {
          byInstance.get(caller).add(e, true, e.weight / e.sourceInstances.size());
        }
      }
      if (e.source == null && e.dest.gateway) {
        continue; // a gateway's entry for such a request is its outbound one
      }
      for (Instance callee : e.dest.instances) {
        byInstance.get(callee).add(e, false, e.weight / e.dest.instances.size());
      }
    }
    List<Proxy> ordered = new ArrayList<>();
    for (int k = 0; k < maxPods; k++) {
      for (Service s : topology.services) {
        if (k < s.instances.size()) {
          Proxy p = byInstance.get(s.instances.get(k));
          if (p.logsHttp()) {
            ordered.add(p);
          }
        }
      }
    }
    if (ordered.isEmpty()) {
      throw new IllegalArgumentException("the topology has no HTTP traffic to log");
    }
    this.proxies = List.copyOf(ordered);
  }

  /** A proxy's Envoy clusters: the outbound one of each service it calls, then its inbound one. */
  List<String> upstreamClusters(Proxy p) {
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < p.edges.size(); i++) {
      if (p.outbound.get(i)) {
        out.add(names.get(p.edges.get(i).dest).outboundCluster());
      }
    }
    out.add("inbound|" + PORT + "||");
    return List.copyOf(out);
  }

  /** The proxy stream {@code i} stands for. */
  Proxy proxyFor(int stream) {
    return proxies.get(stream % proxies.size());
  }

  String describe(int streams) {
    long gateways = proxies.stream().filter(p -> p.gateway).count();
    int covered = Math.min(streams, proxies.size());
    return String.format(Locale.ROOT, "%d streams as %d of the %d proxies that log HTTP (%d gateways, %d sidecars)%s",
        streams, covered, proxies.size(), gateways, proxies.size() - gateways,
        covered < proxies.size() ? "; --streams=" + proxies.size() + " covers them all" : "");
  }

  /** Draws the entries of one stream's proxy. Not thread-safe; one per stream. */
  Stream stream(int index, double errorRatio, long seed) {
    return new Stream(proxyFor(index),
        new CallSampler(topology, 0, errorRatio, seed + 0x9E3779B97F4A7C15L * (index + 1)));
  }

  final class Stream {
    final Proxy self;
    private final CallSampler sampler;
    private final SplittableRandom rnd;

    private Stream(Proxy self, CallSampler sampler) {
      this.self = self;
      this.sampler = sampler;
      this.rnd = sampler.random();
    }

    /** Replays past minutes, as {@link CallSampler#backfill}. */
    Stream backfill(int minutes, long startMillis, long durationMillis) {
      sampler.backfill(minutes, startMillis, durationMillis);
      return this;
    }

    /** The stream's first message: Envoy sends its identifier once, on the first message. */
    StreamAccessLogsMessage withIdentifier(StreamAccessLogsMessage m) {
      return m.toBuilder().setIdentifier(self.identifier).build();
    }

    /** About {@code targetEntries} entries in messages of {@code batch} entries, ending near now. */
    MessagePool<StreamAccessLogsMessage> build(int targetEntries, int batch, long nowMillis) {
      List<StreamAccessLogsMessage> messages = new ArrayList<>();
      List<Integer> entries = new ArrayList<>();
      List<Integer> derived = new ArrayList<>();
      HTTPAccessLogEntries.Builder http = HTTPAccessLogEntries.newBuilder();
      int records = 0;
      for (int made = 0; made < Math.max(1, targetEntries); made++) {
        int i = Arrays.binarySearch(self.cumulative, rnd.nextDouble() * self.cumulative[self.cumulative.length - 1]);
        i = Math.min(self.cumulative.length - 1, i < 0 ? -i - 1 : i);
        Edge edge = self.edges.get(i);
        boolean out = self.outbound.get(i);
        if (out) {
          sampler.next(edge, self.instance, edge.dest.instances.get(rnd.nextInt(edge.dest.instances.size())),
              nowMillis);
          http.addLogEntry(outbound());
          records += self.gateway ? 2 : 1;
        } else {
          Instance caller = edge.source == null ? null
              : edge.sourceInstances.get(rnd.nextInt(edge.sourceInstances.size()));
          sampler.next(edge, caller, self.instance, nowMillis);
          http.addLogEntry(inbound());
          records += 1;
        }
        if (http.getLogEntryCount() == batch) {
          messages.add(StreamAccessLogsMessage.newBuilder().setHttpLogs(http).build());
          entries.add(batch);
          derived.add(records);
          http = HTTPAccessLogEntries.newBuilder();
          records = 0;
        }
      }
      if (http.getLogEntryCount() > 0) {
        messages.add(StreamAccessLogsMessage.newBuilder().setHttpLogs(http).build());
        entries.add(http.getLogEntryCount());
        derived.add(records);
      }
      return new MessagePool<>(messages, entries, derived);
    }

    /** The caller's proxy logs the call to its upstream: the callee is in {@code upstream_peer}. */
    private HTTPAccessLogEntry outbound() {
      CallSampler s = sampler;
      Proxy callee = byInstance.get(s.dest);
      ServiceNames target = names.get(s.edge.dest);
      AccessLogCommon.Builder common = AccessLogCommon.newBuilder()
          .setSampleRate(1.0)
          .setStartTime(timestamp(s.clientStartMillis))
          .setDownstreamRemoteAddress(self.gateway ? address(externalIp(), ephemeralPort())
              : address(self.ip, ephemeralPort()))
          .setDownstreamLocalAddress(self.gateway ? address(self.ip, 8080) : target.vip())
          .setUpstreamRemoteAddress(callee.podAddress)
          .setUpstreamLocalAddress(address(self.ip, ephemeralPort()))
          .setUpstreamCluster(target.outboundCluster())
          .setRouteName(self.gateway ? "bookinfo" : "default")
          .setUpstreamRequestAttemptCount(1)
          .putFilterStateObjects("upstream_peer", callee.peer);
      timings(common, s.clientLatencyMillis * 1_000_000L, s.clientRequestNanos, s.clientResponseNanos, true);
      return entry(common, s);
    }

    /**
     * The callee's proxy logs the call into its workload: the caller, if in the mesh, is in
     * {@code downstream_peer}.
     */
    private HTTPAccessLogEntry inbound() {
      CallSampler s = sampler;
      Proxy caller = s.source == null ? null : byInstance.get(s.source);
      AccessLogCommon.Builder common = AccessLogCommon.newBuilder()
          .setSampleRate(1.0)
          .setStartTime(timestamp(s.serverStartMillis))
          .setDownstreamRemoteAddress(address(caller == null ? externalIp() : caller.ip, ephemeralPort()))
          .setDownstreamLocalAddress(self.podAddress)
          .setUpstreamRemoteAddress(self.podAddress)
          .setUpstreamLocalAddress(address("127.0.0.6", ephemeralPort()))
          .setUpstreamCluster("inbound|" + PORT + "||")
          .setRouteName("default")
          .setUpstreamRequestAttemptCount(1);
      if (caller != null) {
        common.putFilterStateObjects("downstream_peer", caller.peer);
        if ("mTLS".equals(s.edge.tlsMode)) {
          common.setTlsProperties(TLSProperties.newBuilder()
              .setTlsVersion(TLSProperties.TLSVersion.TLSv1_3)
              .setTlsCipherSuite(UInt32Value.of(0x1301)) // TLS_AES_128_GCM_SHA256
              .setTlsSniHostname(names.get(s.edge.dest).sni())
              .setLocalCertificateProperties(self.certificate)
              .setPeerCertificateProperties(caller.certificate));
        }
      }
      long total = s.serverLatencyMillis * 1_000_000L;
      long app = Math.max(0, total - s.serverRequestNanos - s.serverResponseNanos);
      timings(common, app, s.serverRequestNanos, s.serverResponseNanos, false);
      return entry(common, s);
    }

    /**
     * Envoy's timing fields, relative to start_time: the request is read from downstream, sent
     * upstream after {@code proxyRequest}, answered after {@code upstream}, and relayed downstream
     * after {@code proxyResponse}. A failed upstream connection (UF) never reaches the upstream.
     */
    private void timings(AccessLogCommon.Builder c, long upstream, long proxyRequest, long proxyResponse,
        boolean client) {
      boolean connectFailed = "UF".equals(sampler.internalErrorCode);
      c.setTimeToLastRxByte(duration(proxyRequest / 2));
      long lastDownstream;
      if (connectFailed && client) {
        c.setTimeToFirstDownstreamTxByte(duration(upstream));
        lastDownstream = upstream + 20_000;
        c.setUpstreamTransportFailureReason("delayed connect error: 111");
      } else {
        long firstRx = proxyRequest + upstream * 3 / 4;
        long lastRx = proxyRequest + upstream;
        c.setTimeToFirstUpstreamTxByte(duration(proxyRequest))
            .setTimeToLastUpstreamTxByte(duration(proxyRequest + 8_000))
            .setTimeToFirstUpstreamRxByte(duration(firstRx))
            .setTimeToLastUpstreamRxByte(duration(lastRx))
            .setTimeToFirstDownstreamTxByte(duration(firstRx + proxyResponse));
        lastDownstream = lastRx + proxyResponse;
      }
      c.setTimeToLastDownstreamTxByte(duration(lastDownstream)).setDuration(duration(lastDownstream));
      if (sampler.internalErrorCode.equals("UF")) {
        c.setResponseFlags(ResponseFlags.newBuilder().setUpstreamConnectionFailure(true));
      } else if (sampler.internalErrorCode.equals("UT")) {
        c.setResponseFlags(ResponseFlags.newBuilder().setUpstreamRequestTimeout(true));
      }
    }

    private HTTPAccessLogEntry entry(AccessLogCommon.Builder common, CallSampler s) {
      boolean grpc = s.edge.kind() == Kind.GRPC;
      String endpoint = s.endpoint;
      String method;
      String path;
      int colon = endpoint.indexOf(':');
      if (endpoint.startsWith("/")) {
        method = "POST"; // a gRPC method name
        path = endpoint;
      } else if (colon > 0) {
        method = endpoint.substring(0, colon);
        path = endpoint.substring(colon + 1);
      } else {
        method = "GET";
        path = "/" + endpoint;
      }
      boolean external = s.source == null || byInstance.get(s.source).gateway;
      HTTPRequestProperties.Builder request = HTTPRequestProperties.newBuilder()
          .setRequestMethod(method(method))
          .setScheme("http")
          // Behind a gateway, requests keep the external host name.
          .setAuthority(external && s.source != null ? "www.example.com" : names.get(s.edge.dest).authority())
          .setPath(path)
          .setUserAgent(grpc ? "grpc-java-netty/1.63.0" : external
              ? "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" : "python-requests/2.31.0")
          .setRequestId(new UUID((rnd.nextLong() & ~0xF000L) | 0x4000L,
              (rnd.nextLong() & ~(3L << 62)) | (1L << 63)).toString())
          .setRequestHeadersBytes(180 + rnd.nextInt(240))
          .setRequestBodyBytes(method.equals("GET") || method.equals("DELETE") ? 0 : 40 + rnd.nextInt(900));
      if (grpc) {
        // Logged when the provider's additional_request_headers_to_log includes content-type.
        request.putRequestHeaders("content-type", "application/grpc");
      }
      String details = switch (s.internalErrorCode) {
        case "UF" -> "upstream_reset_before_response_started{connection_failure}";
        case "UT" -> "response_timeout";
        default -> "via_upstream";
      };
      HTTPResponseProperties.Builder response = HTTPResponseProperties.newBuilder()
          .setResponseCode(UInt32Value.of(s.responseCode))
          .setResponseCodeDetails(details)
          .setResponseHeadersBytes(120 + rnd.nextInt(160))
          .setResponseBodyBytes(s.success ? (long) (2048 * Math.exp(rnd.nextGaussian())) : 19 + rnd.nextInt(80));
      return HTTPAccessLogEntry.newBuilder()
          .setCommonProperties(common)
          .setProtocolVersion(grpc ? HTTPAccessLogEntry.HTTPVersion.HTTP2 : HTTPAccessLogEntry.HTTPVersion.HTTP11)
          .setRequest(request)
          .setResponse(response)
          .build();
    }

    private Timestamp timestamp(long millis) {
      // Envoy's start times have microsecond resolution; keep the millisecond the sampler drew.
      return Timestamp.newBuilder().setSeconds(Math.floorDiv(millis, 1000))
          .setNanos((int) Math.floorMod(millis, 1000) * 1_000_000 + rnd.nextInt(1000) * 1000).build();
    }

    private int ephemeralPort() {
      return 32768 + rnd.nextInt(28232);
    }

    private String externalIp() {
      return "203.0.113." + (1 + rnd.nextInt(254));
    }
  }

  private static final Map<String, RequestMethod> METHODS = Map.of("GET", RequestMethod.GET, "POST",
      RequestMethod.POST, "PUT", RequestMethod.PUT, "DELETE", RequestMethod.DELETE, "PATCH", RequestMethod.PATCH,
      "HEAD", RequestMethod.HEAD, "OPTIONS", RequestMethod.OPTIONS);

  private static RequestMethod method(String name) {
    return METHODS.getOrDefault(name, RequestMethod.GET);
  }

  private static Duration duration(long nanos) {
    long n = Math.max(0, nanos);
    return Duration.newBuilder().setSeconds(n / 1_000_000_000L).setNanos((int) (n % 1_000_000_000L)).build();
  }

  static Address address(String ip, int port) {
    return Address.newBuilder().setSocketAddress(SocketAddress.newBuilder().setAddress(ip).setPortValue(port)).build();
  }

  private static Value str(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }
}
