package io.sextant.receiver.envoy.als;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.data.accesslog.v3.AccessLogCommon;
import io.envoyproxy.envoy.data.accesslog.v3.HTTPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.ResponseFlags;
import io.envoyproxy.envoy.data.accesslog.v3.TCPAccessLogEntry;
import io.envoyproxy.envoy.data.accesslog.v3.TLSProperties;
import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.CallRecord;
import io.sextant.api.model.DetectPoint;
import io.sextant.api.model.FlowRecord;
import io.sextant.api.model.Layer;
import io.sextant.api.model.MeshRecord;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
import io.sextant.receiver.envoy.PeerMetadata;
import io.sextant.receiver.envoy.ServiceNaming;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns Envoy access-log entries into the same call and flow records the mesh telemetry receiver
 * produces, so MESH metrics and topology come out identically.
 *
 * <p>Who is who: the reporting proxy's own workload comes from its node metadata; the peer from
 * Istio's metadata exchange in the entry's filter state ({@code downstream_peer}/{@code
 * upstream_peer}, or the pre-1.24 {@code wasm.*} keys). With a resolver (Kubernetes mode), what
 * those leave unknown is found by address, as SkyWalking's Kubernetes analysis does: the proxy's own
 * workload by the downstream connection's local address for inbound and gateway entries, by its
 * remote address for outbound entries; the caller by the downstream remote address, the callee by
 * the upstream remote address. A peer on the downstream side makes the entry a server-side report,
 * one on the upstream side a client-side report. An ambient waypoint's entry is both, as in
 * SkyWalking 10.3: caller to waypoint (its server side) and waypoint to callee (its client side).
 * Entries that cannot be attributed are counted by reason and logged (one line per interval, with an
 * example proxy).
 */
final class AccessLogConverter {
  private static final String DOWNSTREAM_PEER = "downstream_peer";
  private static final String UPSTREAM_PEER = "upstream_peer";
  private static final String LEGACY_DOWNSTREAM_PEER = "wasm.downstream_peer";
  private static final String LEGACY_UPSTREAM_PEER = "wasm.upstream_peer";
  private static final String NO_TLS = "NONE";
  /** The caller of traffic entering the mesh, as SkyWalking names it (service and instance). */
  private static final ServiceIdentity OUTSIDE =
      new ServiceIdentity(MeshRecord.UNKNOWN_PEER, MeshRecord.UNKNOWN_PEER, Map.of());

  private final ServiceNaming naming;
  private final EndpointNamer endpoints;
  private final PeerAddressResolver resolver;
  private final int maxStringLength;
  private final AlsMetrics metrics;
  private final UnattributedLog unattributed;
  /** Peer identities by their metadata bytes; a mesh has at most a few thousand workloads. */
  // Keyed by the whole Any (type and bytes): the same bytes mean different things as a Struct and a FlatNode.
  private final ConcurrentHashMap<Any, Optional<ServiceIdentity>> peers = new ConcurrentHashMap<>();
  private final AtomicLong cachedPeerBytes = new AtomicLong();
  private static final int MAX_CACHED_PEERS = 50_000;
  /** Peer metadata is a few KB; the cache's keys vary in size, so it is bounded in bytes too. */
  private static final long MAX_CACHED_PEER_BYTES = 16L << 20;
  private static final int MAX_CACHED_PEER_SIZE = 64 << 10;

  AccessLogConverter(ServiceNaming naming, EndpointNamer endpoints, PeerAddressResolver resolver,
      int maxStringLength, AlsMetrics metrics) {
    this(naming, endpoints, resolver, maxStringLength, metrics,
        new UnattributedLog(UnattributedLog.DEFAULT_INTERVAL_MILLIS));
  }

  AccessLogConverter(ServiceNaming naming, EndpointNamer endpoints, PeerAddressResolver resolver,
      int maxStringLength, AlsMetrics metrics, UnattributedLog unattributed) {
    this.unattributed = unattributed;
    this.naming = naming;
    this.endpoints = endpoints;
    this.resolver = resolver;
    this.maxStringLength = maxStringLength;
    this.metrics = metrics;
  }

  /** The reporting proxy's workload, from the node metadata Istio puts on every proxy. */
  Optional<ServiceIdentity> self(Node node) {
    if (!node.hasMetadata()) {
      return Optional.empty();
    }
    return PeerMetadata.fromStruct(node.getMetadata()).flatMap(naming::identify);
  }

  /** Whether entries of a proxy whose node names no workload can still be attributed (by address). */
  boolean resolvesByAddress() {
    return resolver != null;
  }

  /** Counts and logs entries dropped for a reason that concerns the whole message. */
  void dropped(String reason, long count, String nodeId) {
    metrics.dropped(reason, count);
    unattributed.note(reason, count, nodeId, "");
  }

  List<CallRecord> http(HTTPAccessLogEntry entry, ServiceIdentity self, Proxy.Role role) {
    return http(entry, new Proxy("", self, role));
  }

  /** Records for one HTTP entry; an empty list means dropped (and counted). */
  List<CallRecord> http(HTTPAccessLogEntry entry, Proxy proxy) {
    AccessLogCommon common = entry.getCommonProperties();
    Peers peers = entry.hasCommonProperties() ? peers(common, proxy) : missingCommonProperties();
    if (peers == null) {
      return List.of();
    }
    ServiceIdentity self = peers.self;
    String method = entry.getRequest().getRequestMethod().name();
    String path = entry.hasRequest() ? entry.getRequest().getPath() : "/";
    if (path.length() > maxStringLength) {
      metrics.dropped("string_too_long", 1);
      return List.of();
    }
    int code = entry.getResponse().hasResponseCode() ? entry.getResponse().getResponseCode().getValue() : 0;
    String flags = responseFlags(common.getResponseFlags());
    // No response code and a failure flag (UF, UH, ...) means the request never got an answer.
    int effectiveCode = code > 0 ? code : (flags.isEmpty() ? 200 : 503);
    CallProtocol protocol = isGrpc(entry) ? CallProtocol.GRPC : CallProtocol.HTTP;
    String tls = tlsMode(common.getTlsProperties());
    long start = millis(common.getStartTime());
    long reqNanos = nanos(common.getTimeToFirstUpstreamTxByte());
    long respNanos =
        Math.max(0, nanos(common.getTimeToFirstDownstreamTxByte()) - nanos(common.getTimeToFirstUpstreamRxByte()));

    List<CallRecord> out = new ArrayList<>(2);
    if (peers.upstream != null) {
      long outStart = start + millis(common.getTimeToFirstUpstreamTxByte());
      long outEnd = start + millis(common.getTimeToLastUpstreamRxByte());
      String endpoint = endpoints.name(peers.upstream.service(), method, path);
      // The entry's TLS properties describe the downstream connection, not the one to the
      // upstream: as SkyWalking, the client side says NONE and leaves TLS to the server side.
      int latency = (int) Math.min(Integer.MAX_VALUE, Math.max(1, outEnd - outStart));
      out.add(call(outStart, outEnd, self, peers.upstream, endpoint, latency,
          effectiveCode, effectiveCode < 400, protocol, DetectPoint.CLIENT, NO_TLS, flags, reqNanos, respNanos));
    }
    if (peers.reportsServerSide(proxy.role())) {
      ServiceIdentity source = callerOf(peers, proxy.role());
      long latency = Math.max(1, millis(common.getTimeToLastDownstreamTxByte()));
      String endpoint = endpoints.name(self.service(), method, path);
      out.add(call(start, start + latency, source, self, endpoint, (int) Math.min(latency, Integer.MAX_VALUE),
          effectiveCode, effectiveCode < 500, protocol, DetectPoint.SERVER, tls, flags, reqNanos, respNanos));
    }
    metrics.attributed.increment();
    return out;
  }

  List<FlowRecord> tcp(TCPAccessLogEntry entry, ServiceIdentity self, Proxy.Role role) {
    return tcp(entry, new Proxy("", self, role));
  }

  /** Flows for one TCP entry; an empty list means dropped (and counted). */
  List<FlowRecord> tcp(TCPAccessLogEntry entry, Proxy proxy) {
    AccessLogCommon common = entry.getCommonProperties();
    Peers peers = entry.hasCommonProperties() ? peers(common, proxy) : missingCommonProperties();
    if (peers == null) {
      return List.of();
    }
    ServiceIdentity self = peers.self;
    long start = millis(common.getStartTime());
    long end = start + millis(common.getDuration());
    long received = entry.getConnectionProperties().getReceivedBytes();
    long sent = entry.getConnectionProperties().getSentBytes();
    String tls = tlsMode(common.getTlsProperties());
    String flags = responseFlags(common.getResponseFlags());
    List<FlowRecord> out = new ArrayList<>(2);
    if (peers.upstream != null) {
      out.add(flow(start, end, self, peers.upstream, DetectPoint.CLIENT, NO_TLS, flags, received, sent));
    }
    if (peers.reportsServerSide(proxy.role())) {
      out.add(flow(start, end, callerOf(peers, proxy.role()), self, DetectPoint.SERVER, tls, flags, received,
          sent));
    }
    metrics.attributed.increment();
    return out;
  }

  /**
   * Who called, for the server side: the known downstream peer; for a gateway or waypoint whose
   * caller is unknown (outside the mesh), SkyWalking's UNKNOWN service, so the proxy has a
   * server-side relation and a node type; for a sidecar null (no relation; the service's own
   * metrics still count).
   */
  private ServiceIdentity callerOf(Peers peers, Proxy.Role role) {
    if (peers.downstream != null) {
      return peers.downstream;
    }
    metrics.partial("caller_unresolved");
    return switch (role) {
      case GATEWAY, WAYPOINT -> OUTSIDE;
      case SIDECAR -> null;
    };
  }

  private record Peers(ServiceIdentity self, ServiceIdentity downstream, ServiceIdentity upstream, boolean inbound) {
    /**
     * A sidecar's own workload is the server side when the caller is known or the entry is inbound.
     * A gateway or waypoint always reports it: nothing else reports the traffic entering the mesh,
     * or the hop into the waypoint (ztunnel sends no access logs).
     */
    boolean reportsServerSide(Proxy.Role role) {
      return switch (role) {
        case GATEWAY, WAYPOINT -> true;
        case SIDECAR -> downstream != null || inbound;
      };
    }
  }

  private Peers missingCommonProperties() {
    metrics.dropped("missing_common_properties", 1);
    return null;
  }

  /** Who is on each side of the entry, or null (dropped and counted) when it cannot be told. */
  private Peers peers(AccessLogCommon common, Proxy proxy) {
    if (common.getStartTime().getSeconds() < 0) {
      metrics.dropped("bad_time", 1);
      return null;
    }
    Map<String, Any> state = common.getFilterStateObjectsMap();
    ServiceIdentity down = peer(state, DOWNSTREAM_PEER, LEGACY_DOWNSTREAM_PEER);
    ServiceIdentity up = peer(state, UPSTREAM_PEER, LEGACY_UPSTREAM_PEER);
    return switch (proxy.role()) {
      case WAYPOINT -> throughWaypoint(common, proxy, down, up);
      case SIDECAR, GATEWAY -> sidecarOrGateway(common, proxy, down, up);
    };
  }

  /**
   * A waypoint's entry, whatever its cluster ({@code inbound-vip|9080|http|reviews...}, not the
   * sidecar's {@code inbound|}/{@code outbound|}): the waypoint is named by its node metadata, the
   * caller by the downstream peer or (Kubernetes mode) the downstream address, the callee by the
   * upstream peer or (Kubernetes mode) the upstream address, usually an Envoy internal address whose
   * endpoint id is the callee pod's. Without a callee the entry is dropped; an unknown caller is
   * outside the mesh, as for a gateway.
   */
  private Peers throughWaypoint(AccessLogCommon common, Proxy proxy, ServiceIdentity down, ServiceIdentity up) {
    ServiceIdentity self = proxy.self();
    if (self == null) {
      // Waypoint pods always carry Istio's node metadata; their own addresses in an entry are internal.
      unattributable(resolver != null ? "proxy_unresolved" : "unknown_node", proxy,
          "a waypoint is named only by its node metadata");
      return null;
    }
    if (resolver != null) {
      String direct = ip(common.getDownstreamDirectRemoteAddress());
      down = down != null ? down : byIp(direct.isEmpty() ? ip(common.getDownstreamRemoteAddress()) : direct);
      up = up != null ? up : byIp(ip(common.getUpstreamRemoteAddress()));
    }
    if (up == null) {
      unattributable("destination_unresolved", proxy, "waypoint upstream "
          + ip(common.getUpstreamRemoteAddress()) + " (" + common.getUpstreamCluster() + ")");
      return null;
    }
    return new Peers(self, down, up, false);
  }

  private Peers sidecarOrGateway(AccessLogCommon common, Proxy proxy, ServiceIdentity down, ServiceIdentity up) {
    boolean gateway = proxy.role() == Proxy.Role.GATEWAY;
    ServiceIdentity self = proxy.self();
    Direction direction = Direction.ofCluster(common.getUpstreamCluster());
    boolean inbound = direction == Direction.INBOUND;
    if (resolver != null) {
      String local = ip(common.getDownstreamLocalAddress());
      // The remote address may come from X-Forwarded-For or the PROXY protocol; the direct one is the socket's.
      String remote = ip(common.hasDownstreamDirectRemoteAddress()
          ? common.getDownstreamDirectRemoteAddress() : common.getDownstreamRemoteAddress());
      if (gateway || inbound) {
        // The connection came to the proxy's own workload (or the gateway's listener) from the caller.
        self = self != null ? self : byIp(local);
        down = down != null ? down : byIp(remote);
      } else if (direction == Direction.OUTBOUND) {
        // The application connected out from its own pod address, redirected into its sidecar.
        self = self != null ? self : byIp(remote);
      }
      if (direction == Direction.OUTBOUND && up == null) {
        up = byIp(ip(common.getUpstreamRemoteAddress()));
      }
      if (self == null) {
        String reason = direction == null && !gateway ? "direction_unknown" : "proxy_unresolved";
        String own = gateway || inbound ? local : remote;
        unattributable(reason, proxy, !"proxy_unresolved".equals(reason) ? ""
            : own.isEmpty() ? "no address of its own in the entry" : "own address " + own + " matches no pod");
        return null;
      }
    }
    if (self == null) {
      unattributable("unknown_node", proxy, "");
      return null;
    }
    if (down == null && up == null && !inbound) {
      String reason = direction == Direction.OUTBOUND ? "destination_unresolved" : "direction_unknown";
      unattributable(reason, proxy, direction == Direction.OUTBOUND
          ? "upstream " + ip(common.getUpstreamRemoteAddress()) + " (" + common.getUpstreamCluster() + ")" : "");
      return null;
    }
    return new Peers(self, down, up, inbound);
  }

  private ServiceIdentity byIp(String ip) {
    return ip.isEmpty() ? null : resolver.byIp(ip).orElse(null);
  }

  private void unattributable(String reason, Proxy proxy, String detail) {
    metrics.dropped(reason, 1);
    unattributed.note(reason, 1, proxy.nodeId(), detail);
  }

  private ServiceIdentity peer(Map<String, Any> state, String key, String legacyKey) {
    Any value = state.get(key);
    if (value == null) {
      value = state.get(legacyKey);
    }
    if (value == null) {
      return null;
    }
    // The same peer sends the same bytes on every entry: unpack and name it once.
    Optional<ServiceIdentity> known = peers.get(value);
    if (known == null) {
      known = PeerMetadata.fromAny(value).flatMap(naming::identify);
      int size = value.getValue().size() + value.getTypeUrl().length() + 200;
      if (size <= MAX_CACHED_PEER_SIZE) {
        if (peers.size() >= MAX_CACHED_PEERS || cachedPeerBytes.addAndGet(size) > MAX_CACHED_PEER_BYTES) {
          peers.clear();
          cachedPeerBytes.set(size);
        }
        peers.put(value, known);
      }
    }
    return known.orElse(null);
  }

  private CallRecord call(long start, long end, ServiceIdentity source, ServiceIdentity dest, String endpoint,
      int latency, int code, boolean success, CallProtocol protocol, DetectPoint dp, String tls, String flags,
      long reqNanos, long respNanos) {
    return new CallRecord(start, end, source == null ? "" : source.service(), source == null ? "" : source.instance(),
        dest.service(), dest.instance(), endpoint, latency, code, success, protocol, dp, tls, flags, reqNanos,
        respNanos, Layer.MESH, source == null ? Map.of() : source.properties(), dest.properties());
  }

  private FlowRecord flow(long start, long end, ServiceIdentity source, ServiceIdentity dest, DetectPoint dp,
      String tls, String flags, long received, long sent) {
    return new FlowRecord(start, end, source == null ? "" : source.service(), source == null ? "" : source.instance(),
        dest.service(), dest.instance(), dp, tls, flags, 0, 0, received, sent, Layer.MESH,
        source == null ? Map.of() : source.properties(), dest.properties());
  }

  private static boolean isGrpc(HTTPAccessLogEntry entry) {
    String requestType = entry.getRequest().getRequestHeadersMap().getOrDefault("content-type", "");
    String responseType = entry.getResponse().getResponseHeadersMap().getOrDefault("content-type", "");
    return requestType.startsWith("application/grpc") || responseType.startsWith("application/grpc")
        || entry.getResponse().getResponseTrailersMap().containsKey("grpc-status");
  }

  /** NONE without a local certificate, TLS with only ours, mTLS with the peer's too (as SkyWalking). */
  static String tlsMode(TLSProperties tls) {
    boolean local = tls.hasLocalCertificateProperties()
        && (!tls.getLocalCertificateProperties().getSubject().isEmpty()
            || tls.getLocalCertificateProperties().getSubjectAltNameCount() > 0);
    boolean peer = tls.hasPeerCertificateProperties()
        && (!tls.getPeerCertificateProperties().getSubject().isEmpty()
            || tls.getPeerCertificateProperties().getSubjectAltNameCount() > 0);
    return !local ? "NONE" : peer ? "mTLS" : "TLS";
  }

  /** Envoy's short response-flag codes (UH, UF, URX, ...), comma-separated. */
  static String responseFlags(ResponseFlags f) {
    StringBuilder b = new StringBuilder();
    flag(b, f.getFailedLocalHealthcheck(), "LH");
    flag(b, f.getNoHealthyUpstream(), "UH");
    flag(b, f.getUpstreamRequestTimeout(), "UT");
    flag(b, f.getLocalReset(), "LR");
    flag(b, f.getUpstreamRemoteReset(), "UR");
    flag(b, f.getUpstreamConnectionFailure(), "UF");
    flag(b, f.getUpstreamConnectionTermination(), "UC");
    flag(b, f.getUpstreamOverflow(), "UO");
    flag(b, f.getNoRouteFound(), "NR");
    flag(b, f.getDelayInjected(), "DI");
    flag(b, f.getFaultInjected(), "FI");
    flag(b, f.getRateLimited(), "RL");
    flag(b, f.hasUnauthorizedDetails(), "UAEX");
    flag(b, f.getRateLimitServiceError(), "RLSE");
    flag(b, f.getDownstreamConnectionTermination(), "DC");
    flag(b, f.getUpstreamRetryLimitExceeded(), "URX");
    flag(b, f.getStreamIdleTimeout(), "SI");
    flag(b, f.getInvalidEnvoyRequestHeaders(), "IH");
    flag(b, f.getDownstreamProtocolError(), "DPE");
    flag(b, f.getUpstreamMaxStreamDurationReached(), "UMSDR");
    flag(b, f.getNoFilterConfigFound(), "NFCF");
    flag(b, f.getDurationTimeout(), "DT");
    flag(b, f.getUpstreamProtocolError(), "UPE");
    flag(b, f.getNoClusterFound(), "NC");
    flag(b, f.getOverloadManager(), "OM");
    flag(b, f.getDnsResolutionFailure(), "DF");
    flag(b, f.getDownstreamRemoteReset(), "DR");
    return b.toString();
  }

  private static void flag(StringBuilder b, boolean set, String code) {
    if (set) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(code);
    }
  }

  /**
   * The IP of an address: a socket address's, or the one in an Envoy internal address's endpoint id
   * ({@code 10.0.3.7:9080}, {@code [fd00::7]:9080}): a waypoint reaches its callee through its
   * internal {@code connect_originate} listener (HBONE), naming the callee pod only there.
   */
  static String ip(Address a) {
    if (!a.hasEnvoyInternalAddress()) {
      return a.getSocketAddress().getAddress();
    }
    String id = a.getEnvoyInternalAddress().getEndpointId();
    if (id.startsWith("[")) {
      int close = id.indexOf(']');
      return close > 0 ? id.substring(1, close) : "";
    }
    int colon = id.indexOf(':');
    // One colon: host and port; none: a bare IP; more: an unbracketed IPv6 address without a port.
    return colon < 0 || id.indexOf(':', colon + 1) >= 0 ? id : id.substring(0, colon);
  }

  private static long millis(Timestamp t) {
    return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
  }

  private static long millis(Duration d) {
    return d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
  }

  private static long nanos(Duration d) {
    return d.getSeconds() * 1_000_000_000L + d.getNanos();
  }
}
