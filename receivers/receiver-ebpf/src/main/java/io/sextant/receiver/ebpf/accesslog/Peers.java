package io.sextant.receiver.ebpf.accesslog;

import io.sextant.api.model.KernelRecord;
import io.sextant.receiver.common.PeerAddressResolver;
import io.sextant.receiver.common.ServiceIdentity;
import java.util.Optional;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.AccessLogConnection;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ConnectionAddress;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ZTunnelAttachmentEnvironment;
import org.apache.skywalking.apm.network.ebpf.accesslog.v3.ZTunnelAttachmentEnvironmentDetectBy;

/**
 * Names the two ends of a connection as SkyWalking's access-log handler does: a process Rover
 * watches comes with its service and pod; an address Rover gives only as an IP is looked up by pod
 * IP when a resolver is configured ({@code <cluster>::} before the name when Rover reports a
 * cluster), and is otherwise the {@link KernelRecord#UNKNOWN} service and pod. Behind Istio's
 * ztunnel (ambient), an outbound connection's peer is the real destination ztunnel reports.
 */
final class Peers {
  /** One end of a connection: its service and pod (empty when not known). */
  record End(String service, String instance) {
    static final End UNKNOWN = new End(KernelRecord.UNKNOWN, KernelRecord.UNKNOWN);
  }

  private final PeerAddressResolver resolver;

  /** {@code resolver} may be null: IP-only peers are then unknown. */
  Peers(PeerAddressResolver resolver) {
    this.resolver = resolver;
  }

  /** The watched end; null when Rover sent no address. */
  End local(AccessLogConnection c, String cluster) {
    ConnectionAddress a = c.getLocal();
    return end(a, a.getIp().getHost(), cluster);
  }

  /** The peer; null when Rover sent no address. */
  End remote(AccessLogConnection c, String cluster) {
    ConnectionAddress a = c.getRemote();
    return end(a, ztunnelOutbound(c) ? c.getAttachment().getZTunnel().getRealDestinationIp() : a.getIp().getHost(),
        cluster);
  }

  /** An end as Rover gave it: a watched process, or {@code host} looked up by IP. */
  private End end(ConnectionAddress a, String host, String cluster) {
    return switch (a.getAddressCase()) {
      case KUBERNETES -> new End(a.getKubernetes().getServiceName(), a.getKubernetes().getPodName());
      case IP -> byIp(host, cluster);
      case ADDRESS_NOT_SET -> null;
    };
  }

  static boolean ztunnel(AccessLogConnection c) {
    return c.hasAttachment() && c.getAttachment().hasZTunnel();
  }

  private static boolean ztunnelOutbound(AccessLogConnection c) {
    if (!ztunnel(c)) {
      return false;
    }
    ZTunnelAttachmentEnvironment z = c.getAttachment().getZTunnel();
    return z.getBy() == ZTunnelAttachmentEnvironmentDetectBy.ZTUNNEL_OUTBOUND_FUNC
        && !z.getRealDestinationIp().isEmpty();
  }

  private End byIp(String host, String cluster) {
    Optional<ServiceIdentity> found = resolver == null ? Optional.empty() : resolver.byIp(host);
    if (found.isEmpty()) {
      return End.UNKNOWN;
    }
    String service = found.get().service();
    if (!cluster.isEmpty()) {
      service = cluster + "::" + service;
    }
    return new End(service, found.get().properties().getOrDefault("pod", ""));
  }
}
