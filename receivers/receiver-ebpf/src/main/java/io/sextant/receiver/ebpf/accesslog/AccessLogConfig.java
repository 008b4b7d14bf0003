package io.sextant.receiver.ebpf.accesslog;

import io.sextant.api.config.ConfigKey;
import io.sextant.api.config.Settings;
import io.sextant.receiver.common.EndpointNamer;
import io.sextant.receiver.k8s.KubernetesPeers;
import java.util.ArrayList;
import java.util.List;

/**
 * Configuration of Rover's access log ({@code receiver.ebpf.accessLog.*}): whether it is served,
 * how HTTP endpoints are grouped and bounded ({@link EndpointNamer#keys}), and how a peer Rover names
 * only by IP is found ({@link KubernetesPeers#keys}).
 */
public final class AccessLogConfig {
  static final String P = "receiver.ebpf.accessLog.";
  static final String KUBERNETES = P + "kubernetes.";

  public static final List<ConfigKey> KEYS = keys();

  private AccessLogConfig() {}

  private static List<ConfigKey> keys() {
    List<ConfigKey> keys = new ArrayList<>();
    keys.add(ConfigKey.bool(P + "enabled", true,
        "serve Rover's eBPF access log (EBPFAccessLogService): the K8S_SERVICE layer"));
    keys.addAll(EndpointNamer.keys(P, "GET:/users/\\d+ => GET:/users/{id}"));
    keys.addAll(KubernetesPeers.keys(KUBERNETES,
        "name a peer Rover reports only by IP from its pod through the Kubernetes API (needs RBAC: list/watch"
            + " pods); without it such a peer is the 'Unknown' service, as in SkyWalking without its registry"));
    return List.copyOf(keys);
  }

  public static boolean enabled(Settings s) {
    return s.bool(P + "enabled");
  }
}
